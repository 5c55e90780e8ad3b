/// mpv's key names, for checking a hotkey where it is written (the configuration) rather than
/// when mpv refuses it at start. The list is libmpv 0.35's `input-key-list` (a test compares
/// the two on the real libmpv).
public enum KeyNames {
    /// The special keys' names; any single character is a key of its own.
    public static let special: Set<String> = [
        "SPACE", "SHARP", "IDEOGRAPHIC_SPACE", "ENTER", "TAB", "BS", "DEL", "INS", "HOME", "END", "PGUP",
        "PGDWN", "ESC", "PRINT", "RIGHT", "LEFT", "DOWN", "UP", "F1", "F2", "F3", "F4", "F5", "F6", "F7",
        "F8", "F9", "F10", "F11", "F12", "F13", "F14", "F15", "F16", "F17", "F18", "F19", "F20", "F21",
        "F22", "F23", "F24", "KP0", "KP1", "KP2", "KP3", "KP4", "KP5", "KP6", "KP7", "KP8", "KP9",
        "KP_DEL", "KP_DEC", "KP_INS", "KP_ENTER", "MBTN_LEFT", "MBTN_MID", "MBTN_RIGHT", "WHEEL_UP",
        "WHEEL_DOWN", "WHEEL_LEFT", "WHEEL_RIGHT", "MBTN_BACK", "MBTN_FORWARD", "MBTN9", "MBTN10",
        "MBTN11", "MBTN12", "MBTN13", "MBTN14", "MBTN15", "MBTN16", "MBTN17", "MBTN18", "MBTN19",
        "MBTN_LEFT_DBL", "MBTN_MID_DBL", "MBTN_RIGHT_DBL", "GAMEPAD_ACTION_DOWN", "GAMEPAD_ACTION_RIGHT",
        "GAMEPAD_ACTION_LEFT", "GAMEPAD_ACTION_UP", "GAMEPAD_BACK", "GAMEPAD_MENU", "GAMEPAD_START",
        "GAMEPAD_LEFT_SHOULDER", "GAMEPAD_RIGHT_SHOULDER", "GAMEPAD_LEFT_TRIGGER", "GAMEPAD_RIGHT_TRIGGER",
        "GAMEPAD_LEFT_STICK", "GAMEPAD_RIGHT_STICK", "GAMEPAD_DPAD_UP", "GAMEPAD_DPAD_DOWN",
        "GAMEPAD_DPAD_LEFT", "GAMEPAD_DPAD_RIGHT", "GAMEPAD_LEFT_STICK_UP", "GAMEPAD_LEFT_STICK_DOWN",
        "GAMEPAD_LEFT_STICK_LEFT", "GAMEPAD_LEFT_STICK_RIGHT", "GAMEPAD_RIGHT_STICK_UP",
        "GAMEPAD_RIGHT_STICK_DOWN", "GAMEPAD_RIGHT_STICK_LEFT", "GAMEPAD_RIGHT_STICK_RIGHT", "POWER",
        "MENU", "PLAY", "PAUSE", "PLAYPAUSE", "STOP", "FORWARD", "REWIND", "NEXT", "PREV", "VOLUME_UP",
        "VOLUME_DOWN", "MUTE", "HOMEPAGE", "WWW", "MAIL", "FAVORITES", "SEARCH", "SLEEP", "CANCEL",
        "RECORD", "CHANNEL_UP", "CHANNEL_DOWN", "PLAYONLY", "PAUSEONLY", "XF86_PAUSE", "XF86_STOP",
        "XF86_PREV", "XF86_NEXT", "MOUSE_BTN0", "MOUSE_BTN1", "MOUSE_BTN2", "MOUSE_BTN3", "MOUSE_BTN4",
        "MOUSE_BTN5", "MOUSE_BTN6", "MOUSE_BTN7", "MOUSE_BTN8", "MOUSE_BTN9", "MOUSE_BTN10", "MOUSE_BTN11",
        "MOUSE_BTN12", "MOUSE_BTN13", "MOUSE_BTN14", "MOUSE_BTN15", "MOUSE_BTN16", "MOUSE_BTN17",
        "MOUSE_BTN18", "MOUSE_BTN19", "MOUSE_BTN0_DBL", "MOUSE_BTN1_DBL", "MOUSE_BTN2_DBL", "AXIS_UP",
        "AXIS_DOWN", "AXIS_LEFT", "AXIS_RIGHT", "CLOSE_WIN", "MOUSE_MOVE", "MOUSE_LEAVE", "MOUSE_ENTER",
        "UNMAPPED", "ANY_UNICODE",
    ]

    /// The modifiers a key may carry, as in `Ctrl+Shift+f`.
    public static let modifiers = ["shift", "ctrl", "alt", "meta"]

    /// Why `key` is not a key name mpv takes; `nil` when it is one.
    public static func problem(with key: String) -> String? {
        var parts = key.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        // "+" alone, or modifiers with "+" ("Shift++"): the key itself is "+".
        if key == "+" || key.hasSuffix("++") {
            parts =
                key == "+"
                ? ["+"]
                : key.dropLast(2).split(separator: "+", omittingEmptySubsequences: false).map(String.init) + ["+"]
        }
        guard let name = parts.last, !name.isEmpty else { return "an empty key name" }
        for m in parts.dropLast() where !modifiers.contains(m.lowercased()) {
            return "'\(m)' is not a modifier; expected Shift, Ctrl, Alt or Meta"
        }
        if name.count == 1 || special.contains(name.uppercased()) { return nil }
        if name.lowercased().hasPrefix("0x"), UInt32(name.dropFirst(2), radix: 16) != nil { return nil }
        return "mpv has no key named '\(name)'; a key is one character or a name such as ENTER, SPACE, F1 … F24, KP0, "
            + "UP, PGUP, MBTN_LEFT, PLAYPAUSE (the whole list: mpv --input-keylist)"
    }
}
