import Testing
import UprightMetrics
import Wire

/// The board's readings as metrics and as MQTT's state: what a fleet's dashboards and Home
/// Assistant read.
@Suite struct HardwareMetricsTests {
    static var board: HardwareStatus {
        var h = HardwareStatus()
        h.throttled = "0x50005"
        h.temperatures = [
            .init(zone: "cpu-thermal", celsius: 71.4, limit: 85), .init(zone: "gpu", celsius: 64, limit: nil),
        ]
        h.problems = ["under-voltage now", "throttled now", "2 storage error(s) since boot, the last on mmc0"]
        (h.storageErrors, h.storageLast) = (2, "mmc0: error -110 whilst initialising SD card")
        return h
    }

    @Test func theBoardsReadingsAreMetrics() {
        let metrics = SessionMetrics()
        metrics.hardware(Self.board)
        let text = metrics.text
        #expect(text.contains(#"upright_temperature_celsius{zone="cpu-thermal"} 71.4"#), "\(text)")
        #expect(text.contains(#"upright_temperature_celsius{zone="gpu"} 64"#))
        #expect(text.contains("upright_throttled \(0x50005)"))
        #expect(text.contains("upright_storage_errors 2"))
    }

    @Test func theBoardsReadingsAreInMQTTsState() {
        var state = MQTTState(
            device: .portrait, interface: .portrait, locked: false, scene: "inline", playing: nil, sensor: "", clip: nil
        )
        state.describe(Self.board)
        #expect(state.temperature == 71 && state.storageErrors == 2 && state.hardware == "under-voltage now")
        state.describe(nil as HardwareStatus?)
        #expect(state.temperature == nil && state.hardware == nil && state.storageErrors == nil)
    }
}
