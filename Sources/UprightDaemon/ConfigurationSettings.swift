public import Config
public import Display
public import Sensors

extension UprightConfiguration {
    /// The `[sensor]` table as the sensor sources take it.
    public var sensorSettings: SensorSettings {
        SensorSettings(uri: sensor.uri, device: sensor.device, rateHz: sensor.rateHz, mountMatrix: sensor.mountMatrix)
    }

    /// The `[display]` table as the display controller takes it.
    public var displaySettings: DisplaySettings {
        var s = DisplaySettings(stateDirectory: uprightRuntimeDirectory())
        s.backend = display.backend
        s.output = display.output
        s.natural = display.natural
        s.mode = OutputState.Mode(display.mode)
        s.touch = display.touch
        s.kiosk = display.kiosk
        return s
    }
}
