public import Config
import Foundation
public import Logging
import MQTT
public import OrientationCore
public import ServiceLifecycle
public import Session
import Settings
public import Wire

/// The screen as a node of an MQTT broker, with Home Assistant discovery. Topics, under
/// `PREFIX/DEVICE/`:
/// - `availability`: `online`, and `offline` as the last will (both retained);
/// - `state`: the session's state as JSON (retained), published when it changes;
/// - `command`: an action as words (`fullscreen`, `rotate-to landscape-left`, `play promo`);
/// - `command/ACTION`: one action, its argument as the payload (`command/rotate-to` ←
///   `landscape-left`; `command/lock` ← `ON`/`OFF`; a button's `PRESS` is ignored);
/// - `screenshot`: a PNG of the screen every `screenshot_interval` seconds (retained).
/// A command that is refused or cannot be read is logged and shown in the state (`refused`,
/// `refused_at`): Home Assistant's "Last refused command" sensor.
/// Commands are read from these topics only; a malformed one is logged and ignored. A broker that
/// is down or refuses is logged, shown in nothing else, and retried with back-off: playback never
/// waits for it. Upright runs no server of its own here.
public struct MQTTService: Service {
    let session: any FleetSession
    let settings: MQTTSettings
    /// The clip scenes, each a button in Home Assistant.
    let clips: [String]
    /// The operator's page (`[web]`), for the device's link in Home Assistant.
    var pageURL: String? = nil
    let logger: Logger

    public init(
        session: any FleetSession, settings: MQTTSettings, clips: [String], pageURL: String? = nil, logger: Logger
    ) {
        (self.session, self.settings, self.clips, self.pageURL, self.logger) = (
            session, settings, clips, pageURL, logger
        )
    }

    var base: String { "\(settings.prefix)/\(settings.device)" }
    var availability: String { base + "/availability" }

    /// The session's state as published: what Home Assistant's entities read.
    typealias State = MQTTState

    public func run() async throws {
        guard let client = connect() else { return }
        let published = PublishedState()
        // Whatever may change the state: the session's status (pushed as it changes), a new
        // connection or a refused command (`nil`: the last status again).
        let (wakes, wake) = AsyncStream.makeStream(of: SessionStatus?.self, bufferingPolicy: .bufferingNewest(4))
        let statuses = Task { [session] in
            for await status in session.statusUpdates() { wake.yield(status) }
            wake.finish()
        }
        let screenshots = Task { await publishScreenshots(client, published) }
        let events = Task { await follow(client.events, client, published, wake) }
        defer {
            events.cancel()
            screenshots.cancel()
            statuses.cancel()
            client.close(finalMessage: (availability, "offline"))
        }
        var droppedSaid = 0
        var last: SessionStatus?
        await withGracefulShutdownHandler {
            for await status in wakes {
                last = status ?? last
                noteDropped(client, said: &droppedSaid)
                if let last { await publishState(last, client, published) }
            }
        } onGracefulShutdown: {
            wake.finish()
        }
    }

    /// The broker's client, connecting in the background; `nil` (logged) when it cannot be made.
    private func connect() -> MQTTClient? {
        let endpoint: MQTTEndpoint
        switch settings.endpoint(password: password()) {
        case .success(let e): endpoint = e
        case .failure(let e):
            logger.error("mqtt: \(e); MQTT is off")
            return nil
        }
        do {
            // Commands are words: 4 KB is far more than any needs.
            let client = try MQTTClient(
                id: "upright-\(settings.device)-\(getpid())", endpoint: endpoint, will: (availability, "offline"),
                maxPayload: 4096)
            logger.info("mqtt: \(settings.url) as \(base)")
            return client
        } catch {
            logger.error("mqtt: \(error); MQTT is off")
            return nil
        }
    }

    /// A screenshot every `screenshot_interval` (the first as soon as the broker answers).
    private func publishScreenshots(_ client: MQTTClient, _ published: PublishedState) async {
        guard settings.screenshotInterval > 0 else { return }
        while !Task.isCancelled {
            guard await published.connected else {
                try? await Task.sleep(for: .milliseconds(500))
                continue
            }
            if let png = await session.screenshotPNG() {
                client.publish(base + "/screenshot", bytes: png, retain: true)
            }
            try? await Task.sleep(for: .seconds(settings.screenshotInterval))
        }
    }

    /// The connection's events: at each connection the subscriptions, the availability and the
    /// discovery; each command message carried out.
    private func follow(
        _ events: MQTTClient.Events, _ client: MQTTClient, _ published: PublishedState,
        _ wake: AsyncStream<SessionStatus?>.Continuation
    ) async {
        var said: String?
        for await e in events {
            switch e {
            case .connected:
                logger.notice("mqtt: connected to \(settings.url)")
                session.noteMQTT("connected to \(settings.url) as \(base)")
                said = nil
                client.subscribe(base + "/command")
                client.subscribe(base + "/command/+")
                client.publish(availability, "online", retain: true)
                if settings.discovery {
                    let status = await session.currentStatus()
                    let (plan, wall) = (status?.powerPlanFollowed != nil, status?.sync != nil)
                    for (topic, config) in discovery(powerPlan: plan, wall: wall, presence: status?.present != nil) {
                        client.publish(topic, config, retain: true)
                    }
                }
                await published.forget()
                await published.setConnected(true)
                wake.yield(nil)
            case .disconnected(let why):
                await published.setConnected(false)
                if why != said { logger.warning("mqtt: \(settings.url): \(why); trying again") }
                session.noteMQTT("\(settings.url): \(why); trying again")
                said = why
            case .message(let topic, _, _, true):
                // Kept by the broker from before: a command acts only when it is sent, never again
                // at each connection (one publish would otherwise force a state for good).
                logger.warning(
                    "mqtt: a retained message on \(topic) was not carried out: commands act only when sent live")
                await published.refuse("\(topic.dropFirst(base.count + 1)): retained: commands act only when sent live")
                wake.yield(nil)
            case .message(let topic, let payload, _, false):
                if let refusal = await command(topic: topic, payload: String(decoding: payload, as: UTF8.self)) {
                    await published.refuse(refusal)
                    wake.yield(nil)
                }
            }
        }
    }

    /// The session's state, published when it changed.
    private func publishState(_ s: SessionStatus, _ client: MQTTClient, _ published: PublishedState) async {
        let refusal = await published.refusal
        var state = State(
            device: s.device, interface: s.interface, locked: s.locked, scene: s.scenes.last ?? "",
            playing: s.playing, sensor: s.sensor, clip: s.clip, powerPlan: s.powerPlanFollowed,
            refused: refusal?.text, refusedAt: refusal?.at, remote: s.cache)
        state.syncOffsetMS = s.sync?.offsetMS.map { ($0 / 5).rounded() * 5 }
        state.tabletMode = s.tabletMode
        state.describe(s.smil)
        state.present = s.present
        state.health = s.health?.verdict
        state.healthReason = s.health?.reason.map { HomeAssistantDiscovery.shortened($0) }
        state.describe(s)
        if await published.changed(to: state) {
            client.publish(base + "/state", Redact.text(JSONLine.encode(state)), retain: true)
        }
    }

    func password() -> String? { settings.readPassword() }

    /// Messages the client dropped (too large, or too many waiting), logged when their count grew.
    private func noteDropped(_ client: MQTTClient, said: inout Int) {
        let dropped = client.dropped
        guard dropped > 0, dropped != said else { return }
        said = dropped
        logger.warning("mqtt: \(dropped) messages dropped so far: larger than 4 KB, or more than 256 waiting")
        session.noteMQTT("connected to \(settings.url) as \(base); \(dropped) messages dropped (too large or too many)")
    }

    /// A message on a command topic: its action asked of the session, the reply logged. Returns
    /// why it was refused or could not be read, or `nil` when it was carried out.
    func command(topic: String, payload: String) async -> String? {
        let words = payload.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init)
        let action: Result<Action, ActionError>
        if topic == base + "/command" {
            action = Action.parse(words: words)
        } else {
            let name = String(topic.dropFirst(base.count + "/command/".count))
            switch (name, words.first?.uppercased()) {
            case ("lock", "ON"): action = .success(.lock)
            case ("lock", "OFF"): action = .success(.unlock)
            case ("lock", _):
                logger.warning("mqtt: \(topic) '\(payload.prefix(80))' ignored: the lock takes ON or OFF")
                return "lock '\(payload.prefix(80))': the lock takes ON or OFF"
            case ("power-plan", "ON"): action = .success(.powerPlan(true))
            case ("power-plan", "OFF"): action = .success(.powerPlan(false))
            default:
                let takes = Action.canonicalName(name).flatMap(Action.Kind.init(rawValue:))?.argument != nil
                action = Action.parse(name: name, argument: takes ? words.joined(separator: " ") : nil)
            }
        }
        switch action {
        case .failure(let e):
            logger.warning("mqtt: \(topic) '\(payload.prefix(80))' ignored: \(e)")
            return "\(topic.dropFirst(base.count + 1)) '\(payload.prefix(80))': \(e)"
        case .success(let a):
            let reply = await session.request(a, from: .mqtt)
            logger.info("mqtt: \(a.words.joined(separator: " ")): \(reply.line)")
            guard !reply.ok else { return nil }
            return "\(a.words.joined(separator: " ")): \(reply.error ?? "refused")"
        }
    }

    /// Home Assistant's discovery messages: the screen as a device with its entities (the power
    /// plan's switch when there is a plan, presence with `idle_off`, the clock's offset for a
    /// wall's screen).
    func discovery(powerPlan: Bool = false, wall: Bool = false, presence: Bool = false) -> [(String, String)] {
        let node = "upright_" + HomeAssistantDiscovery.id(settings.device)
        let device = HomeAssistantDiscovery.Device(
            identifiers: [node], name: "Upright \(settings.device)", manufacturer: "Upright",
            model: "kiosk video player", swVersion: ProgramVersion.text, configurationURL: pageURL)
        let d = DiscoveryEntities(
            node: node, device: device, base: base, availability: availability, prefix: settings.discoveryPrefix)
        var out = d.controls() + d.sensors() + d.kiosk()
        if powerPlan {
            out.append(
                d.entity(
                    "switch", "power_plan",
                    HomeAssistantDiscovery(
                        name: "Power plan", commandTopic: base + "/command/power-plan", stateTopic: d.state,
                        valueTemplate: "{{ 'ON' if value_json.power_plan else 'OFF' }}", icon: "mdi:calendar-clock")))
        }
        if presence {
            var p = HomeAssistantDiscovery(
                name: "Presence", stateTopic: d.state, valueTemplate: "{{ 'ON' if value_json.present else 'OFF' }}")
            p.deviceClass = "occupancy"
            out.append(d.entity("binary_sensor", "presence", p))
        }
        if wall {
            out.append(
                d.entity(
                    "sensor", "sync_offset",
                    HomeAssistantDiscovery(
                        name: "Wall clock offset (ms)", stateTopic: d.state,
                        valueTemplate: "{{ value_json.sync_offset_ms | default('unknown', true) }}",
                        icon: "mdi:clock-fast")))
        }
        if settings.screenshotInterval > 0 {
            var image = HomeAssistantDiscovery(name: "Screen")
            image.imageTopic = base + "/screenshot"
            image.contentType = "image/png"
            out.append(d.entity("image", "screenshot", image))
        }
        for clip in clips {
            out.append(
                d.entity(
                    "button", "play_\(clip)",
                    HomeAssistantDiscovery(
                        name: "Play \(clip)", commandTopic: base + "/command/play", payloadPress: clip)))
        }
        return out
    }
}

/// One screen's Home Assistant entities: each a discovery topic and its configuration, the
/// device and availability filled in.
private struct DiscoveryEntities {
    let node: String
    let device: HomeAssistantDiscovery.Device
    let base: String
    let availability: String
    let prefix: String
    var state: String { base + "/state" }

    func entity(_ component: String, _ id: String, _ fields: HomeAssistantDiscovery) -> (String, String) {
        var config = fields
        config.uniqueID = "\(node)_\(id)"
        config.objectID = "\(node)_\(id)"
        config.device = device
        config.availabilityTopic = availability
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(config)) ?? Data()
        return ("\(prefix)/\(component)/\(node)/\(id)/config", String(decoding: data, as: UTF8.self))
    }

    func button(_ id: String, _ name: String, _ action: String) -> (String, String) {
        entity("button", id, HomeAssistantDiscovery(name: name, commandTopic: base + "/command/" + action))
    }

    /// A sensor showing one field of the state.
    func sensor(_ id: String, _ name: String, _ field: String) -> (String, String) {
        entity(
            "sensor", id,
            HomeAssistantDiscovery(name: name, stateTopic: state, valueTemplate: "{{ value_json.\(field) }}"))
    }

    /// What kiosk owners set and read: the volume and the brightness (numbers), mute (a switch), a toast (a text),
    /// when the player started, and the cache's free room.
    func kiosk() -> [(String, String)] {
        var mute = HomeAssistantDiscovery(
            name: "Mute", commandTopic: base + "/command/mute", stateTopic: state,
            valueTemplate: "{{ 'ON' if value_json.muted | default(false) else 'OFF' }}", icon: "mdi:volume-off")
        (mute.payloadOn, mute.payloadOff) = ("ON", "OFF")
        var toast = HomeAssistantDiscovery(
            name: "Toast", commandTopic: base + "/command/toast", stateTopic: state,
            valueTemplate: "{{ value_json.toast | default('', true) }}", icon: "mdi:message-text")
        (toast.max, toast.mode) = (Double(Action.toastLimit), "text")
        var started = HomeAssistantDiscovery(
            name: "Started", stateTopic: state, valueTemplate: "{{ value_json.started | default(none) }}")
        started.deviceClass = "timestamp"
        var free = HomeAssistantDiscovery(
            name: "Cache free space", stateTopic: state,
            valueTemplate: "{{ value_json.cache_free_mb | default(none) }}",
            icon: "mdi:harddisk")
        (free.deviceClass, free.unitOfMeasurement, free.stateClass) = ("data_size", "MB", "measurement")
        var update = HomeAssistantDiscovery(
            name: "Upright", stateTopic: state,
            valueTemplate:
                "{{ {'installed_version': value_json.version | default(none), 'latest_version': value_json.latest_version | default(none)} | tojson }}"
        )
        update.deviceClass = "firmware"
        return [
            entity("update", "update", update),
            percent("volume", "Volume", icon: "mdi:volume-high"), entity("switch", "mute", mute),
            entity("text", "toast", toast),
            percent("brightness", "Brightness", icon: "mdi:brightness-6"),
            entity("sensor", "started", started), entity("sensor", "cache_free", free),
        ]
    }

    /// A number from 0 to 100 (a slider) that the action `id` sets and the state's field `id` says.
    func percent(_ id: String, _ name: String, icon: String) -> (String, String) {
        var number = HomeAssistantDiscovery(
            name: name, commandTopic: base + "/command/" + id, stateTopic: state,
            valueTemplate: "{{ value_json.\(id) | default(none) }}", icon: icon)
        (number.min, number.max, number.step, number.mode) = (0, 100, 1, "slider")
        return entity("number", id, number)
    }

    /// A binary sensor of the class `problem`: on while `on` (a Jinja expression on the state)
    /// holds, with `attributes` (a Jinja dictionary).
    func problem(_ id: String, _ name: String, on: String, attributes: String) -> (String, String) {
        var sensor = HomeAssistantDiscovery(
            name: name, stateTopic: state, valueTemplate: "{{ 'ON' if \(on) else 'OFF' }}",
            jsonAttributes: (state, "{{ \(attributes) | tojson }}"))
        sensor.deviceClass = "problem"
        return entity("binary_sensor", id, sensor)
    }

    /// The buttons, the lock's switch and the rotation's select.
    func controls() -> [(String, String)] {
        [
            button("fullscreen", "Full screen", "fullscreen"), button("next", "Next", "next"),
            button("previous", "Previous", "previous"),
            button("accept_suggestion", "Accept the rotate suggestion", "accept-suggestion"),
            entity(
                "switch", "lock",
                HomeAssistantDiscovery(
                    name: "Rotation lock", commandTopic: base + "/command/lock", stateTopic: state,
                    valueTemplate: "{{ 'ON' if value_json.locked else 'OFF' }}")),
            entity(
                "select", "rotate_to",
                HomeAssistantDiscovery(
                    name: "Rotate to", commandTopic: base + "/command/rotate-to", stateTopic: state,
                    valueTemplate: "{{ value_json.interface }}", options: InterfaceOrientation.allNames)),
        ]
    }

    /// The sensors: orientations, scene, what plays, the sensor's health, remote content, the
    /// last refused command.
    func sensors() -> [(String, String)] {
        [
            sensor("device_orientation", "Device orientation", "device"),
            sensor("interface_orientation", "Interface orientation", "interface"),
            sensor("scene", "Scene", "scene"),
            entity(
                "sensor", "playing",
                HomeAssistantDiscovery(
                    name: "Playing", stateTopic: state,
                    valueTemplate: "{{ value_json.title | default('nothing', true) }}",
                    jsonAttributes: (state, "{{ {'path': value_json.playing | default(none)} | tojson }}"))),
            sensor("sensor_health", "Sensor", "sensor"),
            entity(
                "sensor", "remote_content",
                HomeAssistantDiscovery(
                    name: "Remote content", stateTopic: state,
                    valueTemplate: "{{ value_json.remote | default('none', true) }}",
                    jsonAttributes: (state, "{{ {'problem': value_json.remote_problem | default(none)} | tojson }}"),
                    icon: "mdi:cloud-download")),
            problem(
                "health", "Health", on: "value_json.health == 'unhealthy'",
                attributes:
                    "{'verdict': value_json.health | default(none), 'reason': value_json.health_reason | default(none)}"
            ),
            {
                var temperature = HomeAssistantDiscovery(
                    name: "Temperature", stateTopic: state,
                    valueTemplate: "{{ value_json.temperature | default(none) }}")
                (temperature.deviceClass, temperature.unitOfMeasurement) = ("temperature", "°C")
                return entity("sensor", "temperature", temperature)
            }(),
            problem(
                "hardware", "Hardware", on: "value_json.hardware | default(none)",
                attributes:
                    "{'problem': value_json.hardware | default(none), 'storage_errors': value_json.storage_errors | default(none)}"
            ),
            entity(
                "sensor", "refused",
                HomeAssistantDiscovery(
                    name: "Last refused command", stateTopic: state,
                    valueTemplate: "{{ value_json.refused | default('none', true) }}",
                    jsonAttributes: (state, "{{ {'at': value_json.refused_at | default(none)} | tojson }}"),
                    icon: "mdi:alert-circle")),
        ]
    }
}

/// The state last published, so that only changes are sent (and all again after a reconnection),
/// and the last refused command.
actor PublishedState {
    private var last: MQTTService.State?
    private(set) var refusal: (text: String, at: String)?
    private(set) var connected = false
    func setConnected(_ now: Bool) { connected = now }
    func refuse(_ text: String) {
        refusal = (text, Date().formatted(.iso8601))
    }
    func forget() { last = nil }
    func changed(to s: MQTTService.State) -> Bool {
        guard s != last else { return false }
        last = s
        return true
    }
}

/// What the fleet's services ask of the running session (`upright play`'s `PlaySession`).
public protocol FleetSession: Sendable {
    /// The session's state now; `nil` once it has ended.
    func currentStatus() async -> SessionStatus?
    /// The session's state now, then as it changes, for as long as it plays.
    func statusUpdates() -> AsyncStream<SessionStatus>
    /// A PNG of what the screen shows, or `nil` when none could be taken.
    func screenshotPNG() async -> [UInt8]?
    /// An action asked for, answered as the control socket answers it.
    func request(_ action: Action, from origin: Origin) async -> ControlReply
    /// The broker's connection in words, for `ctl status`.
    func noteMQTT(_ state: String)
}
