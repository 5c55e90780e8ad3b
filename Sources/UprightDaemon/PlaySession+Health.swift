import Files
import Foundation
import Health
import Synchronization
public import Wire

extension PlaySession {
    /// The node's health now, as the status has it (``SessionShell/health(_:)``). A status that
    /// does not come within 3 s (the player waits for an mpv that does not answer) is not waited
    /// for: the last one and the samples judge.
    public func health() async -> ControlReply {
        // The status, or nothing after 3 s: neither waits for the other (a task group would
        // wait for the late one at its end).
        let answered = Mutex(false)
        let first: SessionStatus?? = await withCheckedContinuation { reply in
            let resume = { @Sendable (value: SessionStatus??) in
                let won = answered.withLock { done -> Bool in
                    defer { done = true }
                    return !done
                }
                if won { reply.resume(returning: value) }
            }
            Task { resume(.some(await self.currentStatus())) }
            Task {
                try? await Task.sleep(for: .seconds(3))
                resume(nil)
            }
        }
        var reply = ControlReply(ok: true)
        switch first {
        case .some(let status?): reply.health = status.health
        case nil:
            if let last = await shell.healthWatch.lastStatus { reply.health = await shell.health(last) }
        case .some(nil): break
        }
        if reply.health == nil {
            reply.health = HealthReport(verdict: "cannot tell", reason: "the session has ended", exit: 2, samples: 0)
        }
        return reply
    }
}

extension SessionShell {
    /// Counts this start in the state directory, first: a start that dies at once is part of a
    /// restart loop too.
    func recordStart() {
        let directory = PlayerID.stateDirectory(environment)
        if let problem = StartHistory.record(Date().timeIntervalSince1970, in: directory) {
            logger.warning("\(problem)")
        }
    }

    /// The picture's sampling, as a source of the session (`judge` makes the status, and the
    /// verdict with it, every fifth sample); none with no video output (vo=null: tests, a dry
    /// run), where nothing is on a screen.
    func healthWatching(judge: @escaping @Sendable () async -> Void) -> (@Sendable () async -> Void)? {
        guard videoOutput != "null" else { return nil }
        return { [healthWatch, player] in await healthWatch.run(player: player, judge: judge) }
    }

    /// The board's power and heat now, and the storage errors the kernel logged, for the status
    /// (and what of them holds now, for the verdict).
    func hardware() -> HardwareStatus? {
        let r = HardwareReadings.read()
        let storage = kernelLog.read(journal: kernelJournal.read)
        guard
            r.throttled != nil || !r.zones.isEmpty || !r.problems.isEmpty || storage.count > 0 || storage.problem != nil
        else { return nil }
        var h = HardwareStatus()
        h.throttled = r.throttled
        h.temperatures = r.zones.map {
            .init(zone: $0.name, celsius: ($0.celsius * 10).rounded() / 10, limit: $0.limit)
        }
        h.problems = r.problems + (storage.problem.map { [$0] } ?? [])
        h.faults = r.faults + StorageErrors.recent(storage.errors, now: StorageErrors.bootMicros())
        if let last = storage.errors.last {
            (h.storageErrors, h.storageLast) = (storage.count, last.message)
            h.problems.append("\(storage.count) storage error(s) since boot, the last on \(last.device)")
        } else if storage.problem == nil {
            h.storageErrors = 0
        }
        metrics.hardware(h)
        return h
    }

    /// The node's health (``HealthRules``) from `status`: the pictures sampled, the display and
    /// the sensor as the status has them, and the starts kept in the state directory.
    func health(_ status: SessionStatus) async -> HealthReport {
        let now = Date().timeIntervalSince1970
        var facts = HealthFacts(session: true, now: now)
        facts.pictures = await healthWatch.samples
        facts.sampling = await healthWatch.samplingProblem(now: now)
        // A video plays and time runs for it (not a picture, not the screen off).
        facts.moving = status.decoder != nil && status.screen != .off
        facts.display = status.display.problem.map { .failing($0) } ?? .working
        if sensor.uri != .none {
            let fine = status.sensor.hasPrefix("sensor reading") || status.sensor.hasPrefix("sensor paused")
            facts.sensor = fine ? .working : .failing(status.sensor)
        }
        facts.starts = StartHistory.read(in: PlayerID.stateDirectory(environment))
        facts.hardware = status.hardware?.faults ?? []
        let rules = HealthRules()
        let samples = facts.pictures.filter { $0.time >= now - rules.holdSeconds }.count
        var verdict = rules.verdict(facts)
        if videoOutput == "null", case .unknown = verdict {
            verdict = .unknown("mpv has no video output (vo=null): no picture on a screen to judge")
        }
        var report: HealthReport
        switch verdict {
        case .healthy: report = HealthReport(verdict: "healthy", reason: nil, exit: 0, samples: samples)
        case .unhealthy(let why): report = HealthReport(verdict: "unhealthy", reason: why, exit: 1, samples: samples)
        case .unknown(let why): report = HealthReport(verdict: "cannot tell", reason: why, exit: 2, samples: samples)
        }
        report.lastSampleAge = facts.pictures.last.map { ((now - $0.time) * 10).rounded() / 10 }
        report.source = await healthWatch.source
        return report
    }
}
