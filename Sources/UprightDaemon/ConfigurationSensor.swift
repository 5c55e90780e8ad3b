public import Config
public import Sensors

extension UprightConfiguration {
    /// The `[sensor]` table as the sensor sources take it.
    public var sensorSettings: SensorSettings {
        SensorSettings(uri: sensor.uri, device: sensor.device, rateHz: sensor.rateHz, mountMatrix: sensor.mountMatrix)
    }
}
