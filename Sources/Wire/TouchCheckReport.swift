/// Where a touch check stands (`upright touch-check`, the control command `touch-check`): the
/// targets shown over the picture and each tap judged. Points are the picture's, 0 to 1 across
/// and down as the viewer sees it; offsets are in the picture's pixels.
public struct TouchCheckReport: Codable, Sendable, Hashable {
    /// One tap, judged against the target it was for.
    public struct Tap: Codable, Sendable, Hashable {
        public var target: [Double]
        public var tap: [Double]
        /// Tap minus target, in pixels.
        public var dx: Double
        public var dy: Double
        public var hit: Bool
        public init(target: [Double], tap: [Double], dx: Double, dy: Double, hit: Bool) {
            (self.target, self.tap, self.dx, self.dy, self.hit) = (target, tap, dx, dy, hit)
        }
    }

    /// The check still waits for taps.
    public var running: Bool
    /// Where it stands, in words ("tap target 2 of 5", "done: 5 of 5 hits", "stopped", …).
    public var state: String
    public var targets: [[Double]]
    public var taps: [Tap]
    /// The picture's size in pixels as the viewer sees it.
    public var width: Int
    public var height: Int
    /// The picture's clockwise turn inside Upright's window (the surface strategy's; 0 when the
    /// output itself turns): the way back from a picture's point to the window's.
    public var angle: Int

    public init(
        running: Bool, state: String, targets: [[Double]], taps: [Tap], width: Int, height: Int, angle: Int
    ) {
        (self.running, self.state, self.targets, self.taps) = (running, state, targets, taps)
        (self.width, self.height, self.angle) = (width, height, angle)
    }
}
