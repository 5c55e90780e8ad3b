import TOML
import Testing

/// The reader as a value: documents in, values or the first fault (line, column, reason) out.
struct TOMLReaderTests {
    func read(_ text: String) throws -> TOMLTable { try TOMLTable(parsing: text) }

    func fault(_ text: String) -> TOMLError? {
        do {
            _ = try TOMLTable(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    @Test func theSpecificationsExamplesRead() throws {
        let t = try read(
            """
            # This is a TOML document
            title = "TOML Example"

            [owner]
            name = "Tom Preston-Werner"
            dob = 1979-05-27T07:32:00-08:00

            [database]
            enabled = true
            ports = [ 8000, 8001, 8002 ]
            data = [ ["delta", "phi"], [3.14] ]
            temp_targets = { cpu = 79.5, case = 72.0 }

            [servers]

            [servers.alpha]
            ip = "10.0.0.1"
            role = "frontend"

            [servers.beta]
            ip = "10.0.0.2"
            role = "backend"
            """)
        #expect(t.keys == ["title", "owner", "database", "servers"])
        #expect(t["title"] == .string("TOML Example"))
        #expect(
            t["owner"]?.table?["dob"]
                == .dateTime(TOMLDateTime(kind: .offsetDateTime, text: "1979-05-27T07:32:00-08:00")))
        let db = try #require(t["database"]?.table)
        #expect(db["enabled"] == .boolean(true))
        #expect(db["ports"] == .array([.integer(8000), .integer(8001), .integer(8002)]))
        #expect(db["data"] == .array([.array([.string("delta"), .string("phi")]), .array([.float(3.14)])]))
        #expect(db["temp_targets"]?.table?["case"] == .float(72))
        #expect(t["servers"]?.table?.keys == ["alpha", "beta"])
        #expect(t["servers"]?.table?["beta"]?.table?["role"] == .string("backend"))
    }

    @Test func keysBareQuotedAndDotted() throws {
        let t = try read(
            """
            bare_key-1 = 1
            "127.0.0.1" = 2
            'quoted "value"' = 3
            "" = 4
            fruit . color = "yellow"
            fruit.flavor = "banana"
            3.14159 = "pi"
            """)
        #expect(t["bare_key-1"] == .integer(1))
        #expect(t["127.0.0.1"] == .integer(2))
        #expect(t["quoted \"value\""] == .integer(3))
        #expect(t[""] == .integer(4))
        #expect(t["fruit"]?.table?["color"] == .string("yellow"))
        #expect(t["fruit"]?.table?["flavor"] == .string("banana"))
        #expect(t["3"]?.table?["14159"] == .string("pi"))
    }

    @Test func strings() throws {
        let t = try read(
            #"""
            basic = "I'm a string. \"You can quote me\". Name\tJos\u00E9\nLocation\tSF. \U0001F600"
            multi = """
            Roses are red
            Violets are blue"""
            folded = """\
                   The quick brown \
                   fox.\
                   """
            quotes = """Here are two quotation marks: "". Simple enough."""
            edge = """"This," she said, "is just a pointless statement.""""
            winpath = 'C:\Users\nodejs\templates'
            regex = '<\i\c*\s*>'
            lines = '''
            The first newline is
            trimmed in raw strings.
            '''
            apos = ''''That,' she said, 'is still pointless.''''
            """#)
        #expect(t["basic"] == .string("I'm a string. \"You can quote me\". Name\tJos\u{E9}\nLocation\tSF. 😀"))
        #expect(t["multi"] == .string("Roses are red\nViolets are blue"))
        #expect(t["folded"] == .string("The quick brown fox."))
        #expect(t["quotes"] == .string("Here are two quotation marks: \"\". Simple enough."))
        #expect(t["edge"] == .string("\"This,\" she said, \"is just a pointless statement.\""))
        #expect(t["winpath"] == .string(#"C:\Users\nodejs\templates"#))
        #expect(t["regex"] == .string(#"<\i\c*\s*>"#))
        #expect(t["lines"] == .string("The first newline is\ntrimmed in raw strings.\n"))
        #expect(t["apos"] == .string("'That,' she said, 'is still pointless.'"))
    }

    @Test func numbersAndDates() throws {
        let t = try read(
            """
            a = +99
            b = -17
            c = 0
            d = 1_000_000
            e = 0xDEAD_beef
            f = 0o755
            g = 0b1101
            h = 9223372036854775807
            i = -9223372036854775808
            j = +1.0
            k = -0.01
            l = 5e+22
            m = 6.626e-34
            n = 224_617.445_991
            o = inf
            p = -inf
            q = nan
            r = 1979-05-27T00:32:00.999999Z
            s = 1979-05-27 07:32:00
            u = 1979-05-27
            v = 00:32:00.5
            w = 2000-02-29
            """)
        let expected: [(String, TOMLValue)] = [
            ("a", .integer(99)), ("b", .integer(-17)), ("c", .integer(0)), ("d", .integer(1_000_000)),
            ("e", .integer(0xDEAD_BEEF)), ("f", .integer(0o755)), ("g", .integer(13)), ("h", .integer(.max)),
            ("i", .integer(.min)), ("j", .float(1)), ("k", .float(-0.01)), ("l", .float(5e22)),
            ("m", .float(6.626e-34)), ("n", .float(224_617.445_991)), ("o", .float(.infinity)),
            ("p", .float(-.infinity)),
            ("r", .dateTime(TOMLDateTime(kind: .offsetDateTime, text: "1979-05-27T00:32:00.999999Z"))),
            ("s", .dateTime(TOMLDateTime(kind: .localDateTime, text: "1979-05-27T07:32:00"))),
            ("u", .dateTime(TOMLDateTime(kind: .localDate, text: "1979-05-27"))),
            ("v", .dateTime(TOMLDateTime(kind: .localTime, text: "00:32:00.5"))),
            ("w", .dateTime(TOMLDateTime(kind: .localDate, text: "2000-02-29"))),
        ]
        for (key, value) in expected { #expect(t[key] == value, "\(key)") }
        #expect(t["q"]?.double?.isNaN == true)
    }

    @Test func tablesArraysOfTablesAndInlineTables() throws {
        let t = try read(
            """
            points = [ { x = 1, y = 2 },
                       { x = 7, y = 8 }, ] # a comma after the last value of an array is fine
            [fruit]
            apple.color = "red"
            apple.taste.sweet = true
            [fruit.apple.texture]
            smooth = true
            [[products]]
            name = "Hammer"
            [[products]]
            [[products]]
            name = "Nail"
            [products.dimensions]
            size = 1
            [x.y.z.w]
            [x]
            name = { first = "Tom", "last" = "Preston-Werner", a.b = 1 }
            """)
        #expect(t["points"]?.array?.count == 2)
        #expect(t["points"]?.array?[1].table?["y"] == .integer(8))
        let apple = try #require(t["fruit"]?.table?["apple"]?.table)
        #expect(apple.keys == ["color", "taste", "texture"])
        #expect(apple["texture"]?.table?["smooth"] == .boolean(true))
        let products = try #require(t["products"]?.array)
        #expect(products.count == 3)
        #expect(products[1] == .table(TOMLTable()))
        #expect(products[2].table?["dimensions"]?.table?["size"] == .integer(1))
        #expect(t["x"]?.table?["name"]?.table?["a"]?.table?["b"] == .integer(1))
        #expect(t["x"]?.table?["y"]?.table?["z"]?.table?["w"] == .table(TOMLTable()))
    }

    @Test func lineEndsOfEitherKindAndAByteOrderMark() throws {
        let t = try read("\u{FEFF}a = \"\"\"\r\none\r\ntwo\"\"\"\r\n[b]\r\nc = 1 # note\r\n")
        #expect(t["a"] == .string("one\ntwo"))
        #expect(t["b"]?.table?["c"] == .integer(1))
    }

    @Test(arguments: [
        // A document that is not TOML, where its first fault stands, and what is said of it.
        ("a = 1\nb = \n", 2, 5, "expected a value"),
        ("a = 1\na = 2\n", 2, 1, "'a' is defined twice"),
        ("[a]\nx = 1\n[a]\n", 3, 1, "the table [a] is defined twice"),
        ("a = \"unclosed\nb = 1\n", 1, 5, "never closed"),
        ("a = [1, 2\nb = 3\n", 2, 1, "expected ',' or ']' in the array"),
        ("a = [1, 2,\n", 1, 5, "the array opened here is never closed"),
        ("a = 01\n", 1, 5, "leading zero"),
        ("a = 1__0\n", 1, 5, "not a valid number"),
        ("a = 1.\n", 1, 5, "not a valid number"),
        ("a = 99999999999999999999\n", 1, 5, "does not fit a 64-bit integer"),
        ("a = 2023-02-29\n", 1, 5, "not a valid date or time"),
        ("a = 25:00:00\n", 1, 5, "not a valid date or time"),
        ("a = \"\\x41\"\n", 1, 6, "unknown escape '\\x'"),
        ("a = \"\\uD800\"\n", 1, 6, "not a Unicode scalar value"),
        ("a = { b = 1, }\n", 1, 14, "no ',' after its last pair"),
        ("a = { b = 1,\n c = 2 }\n", 1, 13, "must be on one line"),
        ("a = { b = 1 }\n[a]\n", 2, 1, "already defined by an inline table"),
        ("a = { b = 1 }\na.c = 2\n", 2, 1, "dotted keys cannot add to it"),
        ("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", 4, 1, "'a.b' is already defined"),
        ("[fruit]\napple.color = 1\n[fruit.apple]\n", 3, 1, "already defined by dotted keys"),
        ("a = []\n[[a]]\n", 2, 1, "an array written inline cannot grow"),
        ("[[a]]\n[a]\n", 2, 1, "already an array of tables"),
        ("a = 1 b = 2\n", 1, 7, "expected the end of the line after a value"),
        ("[a] x = 1\n", 1, 5, "expected the end of the line after the header [a]"),
        ("[a\n", 1, 3, "expected ']' to close the table header"),
        ("= 1\n", 1, 1, "expected a key"),
        ("a 1\n", 1, 3, "expected '=' after the key 'a'"),
        ("a = truee\n", 1, 5, "found 'truee…'"),
        ("a = 1 # bell \u{07}\n", 1, 14, "a control character (U+0007) in a comment"),
        ("a = \"tab\tok, bell \u{07}\"\n", 1, 19, "a control character (U+0007) in a string"),
        ("a = 'x'\"\n", 1, 8, "expected the end of the line"),
        ("é = 1\n", 1, 1, "expected a key"),
        ("k = \"é\" x\n", 1, 9, "found 'x'"),
        ("a = \"\"\"x\"\"\"\"\"\"\n", 1, 9, "too many '\"' at the end"),
    ])
    func faultsSayWhatAndWhere(_ text: String, _ line: Int, _ column: Int, _ reason: String) {
        let e = fault(text)
        #expect(e?.line == line && e?.column == column, "\(String(describing: e)) for \(text.debugDescription)")
        #expect(e?.reason.contains(reason) == true, "\(String(describing: e)) for \(text.debugDescription)")
    }

    /// A hostile document ends in an error, not a stack overflow: arrays and inline tables nest
    /// 32 deep at most, a key has 16 parts at most; and 20 000 `[[x]]` headers read in linear time.
    @Test func parserBombsEndInAnErrorAndManyArrayTablesReadInLinearTime() throws {
        let arrays = "a = " + String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000) + "\n"
        #expect(fault(arrays)?.reason == "arrays and inline tables nest more than 32 deep")
        let tables = "a = " + String(repeating: "{b = ", count: 200_000) + "1" + String(repeating: "}", count: 200_000)
        #expect(fault(tables + "\n")?.reason == "arrays and inline tables nest more than 32 deep")
        let key = "a" + String(repeating: ".a", count: 200_000) + " = 1\n"
        #expect(fault(key)?.reason == "a key has more than 16 dotted parts")
        // 32 deep is still read.
        let deep = "a = " + String(repeating: "[", count: 32) + String(repeating: "]", count: 32) + "\n"
        #expect(fault(deep) == nil)
        let many = (0..<20_000).map { "[[x]]\nv = \($0)\n" }.joined()
        let start = ContinuousClock.now
        let t = try TOMLTable(parsing: many)
        #expect(start.duration(to: .now) < .seconds(10))
        if case .array(let list)? = t["x"] { #expect(list.count == 20_000) } else { Issue.record("no x") }
    }
}
