import OrientationCore

/// The page's HTML, style and script: all served by Upright itself (no CDN: it works offline), for
/// a phone and a desktop, every control labelled for keyboards and screen readers.
enum Pages {
    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static func document(_ title: String, body: String, script: String, meta: String = "") -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        \(meta)<title>\(escape(title))</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/static/page.css">
        <script src="\(script)" defer></script>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// The facts the status fills in: the session's now, and its health.
    static let nowFacts: [(label: String, id: String)] = [
        ("Device", "s-device"), ("Interface", "s-interface"), ("Gravity", "s-gravity"), ("Scene", "s-scene"),
        ("Lock", "s-lock"), ("Strategy", "s-strategy"), ("Playing", "s-playing"), ("Next", "s-next"),
        ("SMIL", "s-smil"),
        ("Last turn", "s-decision"),
    ]
    static let healthFacts: [(label: String, id: String)] = [
        ("Sensor", "s-sensor"), ("Display", "s-display"), ("Input", "s-input"), ("MQTT", "s-mqtt"),
        ("Decoder", "s-decoder"), ("Screen", "s-screen"), ("Sound and light", "s-sound"), ("Toast", "s-toast"),
        ("Hardware", "s-hardware"), ("Node", "s-node"),
    ]

    /// A list of facts, each a label and the element the script fills in.
    static func facts(_ rows: [(label: String, id: String)]) -> String {
        "<dl class=\"facts\">\n" + rows.map { "<dt>\($0.label)</dt><dd id=\"\($0.id)\">–</dd>\n" }.joined() + "</dl>"
    }

    /// The log-in page; `token`: the form's own CSRF token (``WebPage/loginPage(_:message:for:)``).
    static func login(message: String?, token: String = "") -> String {
        document(
            "Upright: log in",
            body: """
                <main class="login">
                <h1>Upright</h1>
                <form method="post" action="/login">
                <input type="hidden" name="csrf" value="\(escape(token))">
                <label for="password">Password</label>
                <input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
                <button type="submit">Log in</button>
                </form>
                \(message.map { "<p class=\"problem\" role=\"alert\" id=\"login-problem\">\(escape($0))</p>" } ?? "")
                </main>
                """, script: "/static/login.js")
    }

    /// The controls: one button per action of the vocabulary; those with an argument get a chooser
    /// beside them (`choices` by argument: the orientations, the configuration's scenes and clips,
    /// the volume's steps), or a line to write in (a toast's words, a notification's name).
    static func controls(_ choices: [Action.Argument: [String]]) -> String {
        var rows: [String] = []
        let written: Set<Action.Argument> = [.text, .name]
        for (name, argument) in Action.vocabulary
        where argument.map({ written.contains($0) || !(choices[$0] ?? []).isEmpty }) ?? true {
            let label = name.replacingOccurrences(of: "-", with: " ").capitalizingFirst
            guard let argument else {
                rows.append(
                    "<button type=\"button\" class=\"action\" data-command=\"\(name)\">\(escape(label))</button>")
                continue
            }
            if written.contains(argument) {
                rows.append(
                    """
                    <span class="with-argument"><label for="arg-\(name)" class="visually-hidden">\(escape(argument.phrase)) for \(escape(label))</label>\
                    <input id="arg-\(name)" type="text" maxlength="\(Action.toastLimit)">\
                    <button type="button" class="action" data-command="\(name)" data-argument="arg-\(name)">\(escape(label))</button></span>
                    """)
                continue
            }
            let options = (choices[argument] ?? []).map { "<option>\(escape($0))</option>" }.joined()
            rows.append(
                """
                <span class="with-argument"><label for="arg-\(name)" class="visually-hidden">\(escape(argument.phrase)) for \(escape(label))</label>\
                <select id="arg-\(name)">\(options)</select>\
                <button type="button" class="action" data-command="\(name)" data-argument="arg-\(name)">\(escape(label))</button></span>
                """)
        }
        return rows.joined(separator: "\n")
    }

    static func main(csrf: String, device: String, choices: [Action.Argument: [String]]) -> String {
        document(
            "Upright: \(device)",
            body: """
                <header>
                <h1>Upright <span class="device">\(escape(device))</span></h1>
                <p id="connection" role="status">connecting…</p>
                <form method="post" action="/logout" id="logout"><button type="submit">Log out</button></form>
                </header>
                <main>
                <section aria-labelledby="h-now" class="card">
                <h2 id="h-now">Now</h2>
                <div class="held">
                <div id="device-figure" class="device-figure" role="img" aria-label="the device as held"><span>▲</span><i id="gravity-arrow" class="gravity" hidden></i></div>
                \(facts(nowFacts))
                </div>
                </section>
                <section aria-labelledby="h-health" class="card">
                <h2 id="h-health">Health</h2>
                \(facts(healthFacts))
                <ul id="problems" class="problems" aria-label="problems"></ul>
                </section>
                <section aria-labelledby="h-preview" class="card">
                <h2 id="h-preview">Preview</h2>
                <img id="preview" alt="the screen now" width="320" height="180" src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==">
                <p id="preview-note" class="note"></p>
                </section>
                <section aria-labelledby="h-controls" class="card">
                <h2 id="h-controls">Controls</h2>
                <div class="controls">
                \(controls(choices))
                </div>
                <p id="answer" role="status" aria-live="polite"></p>
                </section>
                \(contentCard)
                \(configurationCard)
                </main>
                """, script: "/static/page.js",
            meta: "<meta name=\"csrf\" content=\"\(escape(csrf))\">\n")
    }

    /// The content card: the playlist as it plays, the upload folder and the upload form.
    static let contentCard = """
        <section aria-labelledby="h-content" class="card wide">
        <h2 id="h-content">Content</h2>
        <table><caption>Playlist</caption>
        <thead><tr><th scope="col">Entry</th><th scope="col">Plays</th><th scope="col">State</th></tr></thead>
        <tbody id="playlist"></tbody></table>
        <p id="folder" class="note"></p>
        <table><caption>Upload folder</caption>
        <thead><tr><th scope="col">File</th><th scope="col">Size</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Delete</span></th></tr></thead>
        <tbody id="content"></tbody></table>
        <form id="upload">
        <label for="upload-file">Upload media</label>
        <input id="upload-file" type="file" required>
        <button type="submit">Upload</button>
        <progress id="upload-progress" max="1" value="0" aria-label="upload progress" hidden></progress>
        </form>
        <p id="upload-answer" role="status" aria-live="polite"></p>
        </section>
        """

    /// The configuration card: the file as it is, checked and saved from the page.
    static let configurationCard = """
        <section aria-labelledby="h-config" class="card wide">
        <h2 id="h-config">Configuration</h2>
        <p id="config-path" class="note"></p>
        <label for="config-text" class="visually-hidden">The configuration file</label>
        <textarea id="config-text" spellcheck="false" rows="18"></textarea>
        <div class="row"><button type="button" id="config-check">Check</button>
        <button type="button" id="config-save">Save and apply</button></div>
        <ul id="config-problems" class="problems" aria-live="polite" aria-label="problems in the configuration"></ul>
        </section>
        """

    static let loginScript = """
        // Nothing to do on the log-in page but keep the focus on the password.
        document.getElementById('password')?.focus();

        """

    static let css = """
        :root { color-scheme: light dark; --fg: #1b1b1b; --bg: #f6f6f3; --card: #fff; --muted: #5b5b5b; --bad: #a3141b; --ok: #1f6b2b; --accent: #1d4f91; }
        @media (prefers-color-scheme: dark) { :root { --fg: #eee; --bg: #151515; --card: #222; --muted: #aaa; --bad: #ff7b7b; --ok: #7bd88f; --accent: #8ab4f8; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .75rem 1rem; background: var(--card); border-bottom: 1px solid #8884; }
        header h1 { font-size: 1.25rem; margin: 0; flex: 1; }
        .device { color: var(--muted); font-weight: normal; }
        main { display: grid; gap: 1rem; padding: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 22rem), 1fr)); }
        main.login { display: block; max-width: 22rem; margin: 4rem auto; }
        main.login form { display: grid; gap: .5rem; }
        .card { background: var(--card); border: 1px solid #8884; border-radius: .5rem; padding: .75rem 1rem; min-width: 0; }
        .card.wide { grid-column: 1 / -1; }
        h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .75rem; margin: 0; }
        .facts dt { color: var(--muted); }
        .facts dd { margin: 0; overflow-wrap: anywhere; }
        .held { display: flex; gap: 1rem; align-items: flex-start; flex-wrap: wrap; }
        .device-figure { width: 4.5rem; height: 7rem; border: .35rem solid var(--fg); border-radius: .6rem; display: grid; place-items: center; transition: transform .3s; flex: none; margin: 1rem; }
        .device-figure { position: relative; }
        .device-figure span { font-size: 1.5rem; color: var(--accent); }
        .gravity { position: absolute; left: calc(50% - 2px); top: 50%; width: 4px; background: var(--bad); transform-origin: top center; border-radius: 2px; }
        .gravity::after { content: ""; position: absolute; left: -5px; bottom: -6px; border: 7px solid transparent; border-top-color: var(--bad); border-bottom: 0; }
        .problems { color: var(--bad); padding-left: 1.2rem; }
        .problems:empty { display: none; }
        .note { color: var(--muted); font-size: .9rem; }
        #preview { width: 100%; height: auto; max-height: 60vh; object-fit: contain; background: #000; border-radius: .25rem; display: block; }
        .controls { display: flex; flex-wrap: wrap; gap: .5rem; }
        .with-argument { display: inline-flex; gap: .25rem; }
        button, select, input, textarea { font: inherit; }
        button { padding: .45rem .8rem; border-radius: .35rem; border: 1px solid var(--accent); background: var(--accent); color: var(--card); cursor: pointer; min-height: 2.5rem; }
        button:focus-visible, select:focus-visible, input:focus-visible, textarea:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        select, input[type=password] { padding: .4rem; min-height: 2.5rem; }
        textarea { width: 100%; font-family: ui-monospace, monospace; font-size: .9rem; }
        table { width: 100%; border-collapse: collapse; margin-bottom: .75rem; }
        caption { text-align: left; font-weight: 600; padding: .25rem 0; }
        th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid #8883; overflow-wrap: anywhere; }
        .row { display: flex; gap: .5rem; margin: .5rem 0; }
        .ok { color: var(--ok); } .bad { color: var(--bad); }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        form#upload { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .75rem; }

        """
}

extension String {
    var capitalizingFirst: String { prefix(1).uppercased() + dropFirst() }
}
