import OrientationCore
import Testing

@Suite("Policy reconfiguration (SIGHUP)")
struct PolicyReconfigureTests {
    func fullscreen(_ supported: OrientationMask, preferred: InterfaceOrientation) -> PolicyConfiguration {
        var c = PolicyConfiguration()
        c.scenes[Scene.fullscreen]?.supported = supported
        c.scenes[Scene.fullscreen]?.preferred = preferred
        return c
    }

    @Test func keepsTheLockTheScenesAndTheOrientationAndPresentsANewMask() throws {
        var policy = try OrientationPolicy(configuration: PolicyConfiguration(), locked: true)
        _ = policy.start(at: 0)
        _ = policy.handle(.command(.fullscreen), at: 1)
        _ = policy.advance(to: 3)
        #expect(policy.interface == .landscapeRight)
        let out = try policy.reconfigure(fullscreen([.landscapeLeft], preferred: .landscapeLeft), at: 4)
        #expect(policy.locked)
        #expect(policy.stack.map(\.scene) == [Scene.inline, Scene.fullscreen])
        #expect(policy.interface == .landscapeLeft)
        #expect(
            out.contains { if case .decision(let d) = $0 { d.kind == .rotate && d.cause == "reload" } else { false } })
    }

    @Test func aSceneThatIsGoneIsDroppedFromTheStack() throws {
        var c = PolicyConfiguration()
        c.scenes["menu"] = Scene("menu")
        var policy = try OrientationPolicy(configuration: c)
        _ = policy.start(at: 0)
        _ = policy.handle(.command(.push("menu")), at: 1)
        #expect(policy.topScene == "menu")
        _ = try policy.reconfigure(PolicyConfiguration(), at: 2)
        #expect(policy.stack.map(\.scene) == [Scene.inline])
    }

    @Test func aBadConfigurationChangesNothing() throws {
        var policy = try OrientationPolicy(configuration: PolicyConfiguration())
        _ = policy.start(at: 0)
        var bad = PolicyConfiguration()
        bad.appSupported = [.portrait]  // the full-screen scene's landscape is no longer allowed
        #expect(throws: PolicyConfigurationError.self) { _ = try policy.reconfigure(bad, at: 1) }
        #expect(policy.configuration == PolicyConfiguration())
    }
}
