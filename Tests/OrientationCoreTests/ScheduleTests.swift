import OrientationCore
import PropertyBased
import Testing

@Suite("Schedules")
struct ScheduleTests {
    @Test func aDayWindowAndANightWindow() {
        let day = Schedule(days: [1, 2, 3, 4, 5], from: 8 * 60, until: 18 * 60)
        #expect(day.isActive(weekday: 1, minute: 8 * 60) && !day.isActive(weekday: 1, minute: 18 * 60))
        #expect(!day.isActive(weekday: 6, minute: 12 * 60), "not on Saturday")
        // 22:00–06:00 on Fridays: Friday night, into Saturday morning, not Friday morning.
        let night = Schedule(days: [5], from: 22 * 60, until: 6 * 60)
        #expect(night.isActive(weekday: 5, minute: 23 * 60) && night.isActive(weekday: 6, minute: 5 * 60))
        #expect(!night.isActive(weekday: 5, minute: 5 * 60) && !night.isActive(weekday: 6, minute: 23 * 60))
        // Sunday night runs into Monday morning.
        #expect(Schedule(days: [7], from: 22 * 60, until: 6 * 60).isActive(weekday: 1, minute: 60))
        #expect(
            Schedule.minutes("24:00") == 1440 && Schedule.minutes("7:30") == 450 && Schedule.minutes("25:00") == nil)
    }

    @Test func theNextChangeIsTheNextEdge() {
        let day = Schedule(from: 8 * 60, until: 18 * 60)
        #expect(day.minutesToNextChange(weekday: 3, minute: 7 * 60) == 60)
        #expect(day.minutesToNextChange(weekday: 3, minute: 17 * 60 + 59) == 1)
        #expect(Schedule().minutesToNextChange(weekday: 3, minute: 0) == nil, "always open never changes")
    }

    @Test func aWindowIsOpenExactlyBetweenItsEdgesOnItsDays() async {
        // Against a reference written the other way: walk back to the window's start.
        await propertyCheck(
            input: Gen.int(in: 0...1439), Gen.int(in: 0...1439), Gen.int(in: 1...7), Gen.int(in: 0...1439),
            Gen.int(in: 1...7)
        ) { from, until, day, minute, weekday in
            guard from != until else { return }
            let s = Schedule(days: [day], from: from, until: until)
            let length = (until - from + 1440) % 1440
            let sinceStart = (minute - from + 1440) % 1440
            let startDay = minute >= from ? weekday : (weekday == 1 ? 7 : weekday - 1)
            let expected = sinceStart < length && startDay == day
            #expect(
                s.isActive(weekday: weekday, minute: minute) == expected,
                "\(from)-\(until) day \(day) at \(weekday) \(minute)")
        }
    }
}
