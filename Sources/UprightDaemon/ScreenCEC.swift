import Blocking
import CEC

/// The TV's power over HDMI-CEC with the power plan, as `screen.cec` says: `auto` uses the
/// first adapter present (none: nothing to do), `off` none, a path that adapter.
enum ScreenCEC {
    /// Switches the TV; says what was done, or why it could not be.
    static func set(_ on: Bool, choice: String) async -> Result<String, CECError>? {
        guard let path = CECAdapter.chosen(choice) else { return nil }
        return await Blocking.run { () -> Result<String, CECError> in
            do throws(CECError) {
                let adapter = try CECAdapter(path: path)
                try adapter.power(on)
                return .success(
                    "HDMI-CEC \(path) (\(adapter.driver)): "
                        + (on ? "the TV on, showing this input" : "the TV to standby"))
            } catch {
                return .failure(error)
            }
        }
    }
}
