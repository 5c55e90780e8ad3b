import Config
import Foundation
import Logging
import RemoteCache
import Settings
import Wire

/// The newest version the fleet publishes (`[update] source`), asked as ``UpdateWatch`` says,
/// for the status and Home Assistant's `update` entity. Times are the system clock's.
actor UpdateCheck {
    private var watch: UpdateWatch
    let source: String
    let userAgent: String
    let logger: Logger

    init(_ settings: UpdateSettings, userAgent: String, logger: Logger) {
        watch = UpdateWatch(interval: settings.interval)
        (source, self.userAgent, self.logger) = (settings.source, userAgent, logger)
    }

    /// Asks when due, until cancelled; `changed` after each answer.
    func run(changed: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            let now = Date().timeIntervalSince1970
            if watch.due(at: now) {
                let before = (watch.latest, watch.problem)
                watch.answered(await LatestVersion.fetch(source, userAgent: userAgent), at: now)
                if watch.latest != before.0 || watch.problem != before.1 {
                    if let problem = watch.problem {
                        logger.warning("update: \(Redact.text(source)): \(problem); asked again later")
                    } else {
                        let newest = watch.latest ?? "?"
                        logger.notice("update: the newest version is \(newest) (this is \(ProgramVersion.text))")
                    }
                    changed()
                }
            }
            let wait = max(1, watch.nextAt - Date().timeIntervalSince1970)
            guard (try? await Task.sleep(for: .seconds(wait))) != nil else { return }
        }
    }

    var status: UpdateStatus {
        var s = UpdateStatus(installed: ProgramVersion.text)
        s.latest = watch.latest
        s.checked = watch.checkedAt.map { Date(timeIntervalSince1970: $0).formatted(.iso8601) }
        s.problem = watch.problem
        return s
    }
}
