import Foundation
import PropertyBased
import Session
import Testing

@Suite("Strict JSON")
struct StrictJSONTests {
    @Test(arguments: [
        #"{"command": "status"}"#, " { } ", "[]", #"[1, -0.5, 2e10, 3E-2, true, false, null, "x"]"#,
        #"{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}"#, #"{"k\"ey": 1, "k\\ey": 2}"#,
        #"{"\ud83d\ude00": 1, "😀x": 2}"#, #""\u00e9\n\t\/""#, "0", "-0", "\t[\r\n]",
    ])
    func rfc8259IsAccepted(text: String) {
        #expect(StrictJSON.problem(in: text) == nil)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil)
    }

    @Test(arguments: [
        (#"{"command": "status",}"#, "a comma before '}' at column 22"),
        ("[1, 2,]", "a comma before ']' at column 7"),
        (#"{"a": 1, "a": 2}"#, #"the key "a" a second time (each key may appear once) at column 10"#),
        (#"{"x": {"b": 1, "b": 2}}"#, #"the key "b" a second time"#),
        (#"{"a": 1, "\u0061": 2}"#, #"the key "a" a second time"#),
        (#"{"a": 1} // why"#, "a comment (JSON has none) after the JSON value at column 10"),
        (#"{/* c */ "a": 1}"#, "a comment (JSON has none) where a key belongs at column 2"),
        ("{'a': 1}", "a single quote (JSON strings take double quotes) where a key belongs at column 2"),
        ("{a: 1}", "'a' where a key belongs at column 2"),
        (#"{"a": 1} garbage"#, "'garbage' after the JSON value at column 10"),
        (#"{"a": 01}"#, "the number '01' (JSON numbers have no leading zeros, '+', or bare '.') at column 7"),
        (#"{"a": +1}"#, "'+1' where a value belongs at column 7"),
        (#"{"a": 1.}"#, "a number with no digits after its '.' at column 9"),
        (#"{"a": "x"#, "a string that does not end at column 9"),
        (#"{"a": "\x"}"#, #"the escape '\x'"#),
        ("{\"a\": \"\t\"}", "a control character inside a string (escape it) at column 8"),
        (#"{"a" 1}"#, "'1' where ':' belongs at column 6"),
        (#"{"a": 1 "b": 2}"#, "where ',' or '}' belongs at column 9"),
        (#"{"a": tru}"#, "'tru' where a value belongs"),
        ("", "the end of the line where a value belongs at column 1"),
        (#"{"é": 1,}"#, "a comma before '}' at column 9"),
        (String(repeating: "[", count: 100), "more than 64 levels of nesting at column 65"),
    ])
    func eachDepartureIsNamedWithItsColumn(text: String, problem: String) {
        let found = StrictJSON.problem(in: text)?.description ?? "none"
        #expect(found.contains(problem), "\(found)")
    }

    /// Any JSON a builder makes from the numbers is accepted (and Foundation agrees it is JSON);
    /// the same with a comma before any closing bracket of a container that has members is not.
    @Test func builtValuesPassAndATrailingCommaAnywhereIsFound() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...11).array(of: 1...60)) { numbers in
            var source = numbers[...]
            let text = Self.build(&source, depth: 0)
            #expect(StrictJSON.problem(in: text) == nil, "\(text)")
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil)
            for (i, c) in text.enumerated() where c == "}" || c == "]" {
                let before = text.prefix(i).last { !$0.isWhitespace }
                guard before != "{", before != "[" else { continue }
                let broken = String(text.prefix(i)) + "," + text.dropFirst(i)
                #expect(StrictJSON.problem(in: broken)?.what.hasPrefix("a comma before") == true, "\(broken)")
            }
        }
    }

    /// A JSON text from `numbers`: each picks the next part (objects' keys are distinct).
    static func build(_ numbers: inout ArraySlice<Int>, depth: Int) -> String {
        let n = numbers.popFirst() ?? 0
        let space = [" ", "", "\n\t", ""][n % 4]
        switch depth > 4 ? n % 6 : n {
        case 0: return "null"
        case 1: return n.isMultiple(of: 2) ? "true" : "false"
        case 2: return "-\(n).5e\(n)"
        case 3: return #""a\"\u00e9\\ \#(n)""#
        case 4: return "\(n * 7)"
        case 5: return #""😀""#
        case 6, 7, 8:
            let count = (numbers.popFirst() ?? 0) % 4
            let members = (0..<count).map { k in "\"k\(k)\"\(space):" + build(&numbers, depth: depth + 1) }
            return "{" + space + members.joined(separator: "," + space) + space + "}"
        default:
            let count = (numbers.popFirst() ?? 0) % 4
            let elements = (0..<count).map { _ in build(&numbers, depth: depth + 1) }
            return "[" + elements.joined(separator: space + ",") + "]"
        }
    }
}
