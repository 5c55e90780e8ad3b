public import Display
public import Settings

extension DisplayController {
    /// A controller of `backend` for a test's compositor: its state kept in `directory`/state,
    /// `output` chosen when given.
    public static func forTest(
        _ backend: DisplayBackendChoice, directory: String, environment: [String: String], output: String? = nil
    ) -> DisplayController {
        var settings = DisplaySettings()
        settings.backend = backend
        if let output { settings.output = output }
        return DisplayController(settings: settings, stateDirectory: directory + "/state", environment: environment)
    }
}
