#!/usr/bin/env python3
"""upright.toml(5) from config/upright.toml, the example that shows every setting with its default
(a test holds it to the configuration reader's table of keys, and another this page to the
example): each table a subsection, each key with its default and what its comments say.

    toml-man.py config/upright.toml VERSION > upright.toml.5
"""
import re
import sys


def roff(text):
    """Text as roff takes it: backslashes escaped, no line starting with a control character."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    return "\\&" + text if text.startswith((".", "'")) else text


def split_comment(line):
    """A TOML line's value part and its comment, a '#' inside a string left alone."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#":
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def entries(lines):
    """(kind, section, key, value, [comment lines]) in order; kind is 'table', 'key' or 'text'. A
    table or key commented out (`# [wall]`, `# rows = 1`: optional, off by default) counts as one."""
    out = []
    section = None
    for raw in lines:
        line = raw.rstrip("\n")
        commented = line.startswith("#")
        if commented:
            line = line[1:]
            inner, comment = split_comment(line)
            if not re.match(r"^\s?(\[[\w.]+\]|[A-Za-z_]\w*\s*=)", inner):
                if not inner.strip() and comment and line.startswith("  ") and out and out[-1][0] != "text":
                    out[-1][4].append(comment)  # `#      # more`: goes on under a key commented out
                else:
                    out.append(["text", section, None, None, [line.strip()]])
                continue
            line = line[1:] if line.startswith(" ") else line
        body, comment = split_comment(line)
        table = re.match(r"^\[([\w.]+)\]$", body.strip())
        key = re.match(r"^([A-Za-z_][\w]*)\s*=\s*(.*)$", body)
        if table:
            section = table.group(1)
            out.append(["table", section, None, None, [comment] if comment else []])
        elif key and not line.startswith((" ", "\t")):
            out.append(["key", section, key.group(1), key.group(2), [comment] if comment else []])
        elif not body.strip() and comment and line[:1].isspace() and out:
            out[-1][4].append(comment)  # a comment that goes on under the line before
        elif body.strip() and out and out[-1][0] == "key":
            out[-1][3] += " " + body.strip()  # a value that goes on (an array over lines)
            if comment:
                out[-1][4].append(comment)
    return out


def page(path, version):
    with open(path, encoding="utf-8") as f:
        items = entries(f.readlines())
    out = [
        f'.TH UPRIGHT.TOML 5 "" "Upright {roff(version)}" "File Formats"',
        ".SH NAME",
        "upright.toml \\- Upright's configuration",
        ".SH SYNOPSIS",
        "\\fI/etc/upright/upright.toml\\fR, \\fI$XDG_CONFIG_HOME/upright/upright.toml\\fR",
        ".SH DESCRIPTION",
        "A TOML 1.0 file. \\fBupright play\\fR reads \\fB\\-\\-config\\fR \\fIFILE\\fR, else",
        "\\fI$XDG_CONFIG_HOME/upright/upright.toml\\fR (\\fI~/.config\\fR when unset), else",
        "\\fI/etc/upright/upright.toml\\fR, else its built\\-in defaults; \\fBupright check\\-config\\fR",
        "prints the configuration in effect, or each error with its file, line and column.",
        "Every key below is shown with its default: a file needs only what it changes.",
        "Orientation names: portrait, landscape\\-right, portrait\\-upside\\-down, landscape\\-left.",
    ]
    started = False
    for kind, section, key, value, comments in items:
        if kind == "table":
            if not started:
                out.append(".SH TABLES")
                started = True
            out.append(f".SS [{roff(section)}]")
            if comments:
                out.append(".PP")
                out.extend(roff(c) for c in comments)
        elif kind == "key":
            out.append(".TP")
            out.append(f"\\fB{roff(key)}\\fR = {roff(value)}")
            out.extend(roff(c) for c in comments)
        elif kind == "text" and started:
            out.append(".PP")
            out.extend(roff(c) for c in comments)
    out += [
        ".SH FILES",
        ".TP",
        ".I /etc/upright/upright.toml",
        "The system service's configuration (0640 root:upright: it may hold passwords).",
        ".SH SEE ALSO",
        ".BR upright (1),",
        ".BR mpv (1)",
    ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: toml-man.py EXAMPLE.toml VERSION")
    sys.stdout.write(page(sys.argv[1], sys.argv[2]))
