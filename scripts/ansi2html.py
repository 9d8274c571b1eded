#!/usr/bin/env python3
"""Turn coloured terminal output (ANSI SGR escapes) into a standalone HTML
page, dark background and monospace, for a headless-browser screenshot.

Usage: scripts/ansi2html.py < report.ans > report.html
Used for the README's docs/terminal-report.png (see scripts/terminal_screenshot.sh).
"""
import html
import re
import sys

BASIC = ["#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
         "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff"]
FG, BG = "#d4d4d4", "#1e1e1e"


def xterm256(n):
    """The colour of xterm-256 palette index n."""
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + 10 * (n - 232)
    return "#%02x%02x%02x" % (v, v, v)


def extended(codes):
    """Read a 38/48 colour (5;N or 2;R;G;B) from codes; return it and the rest."""
    if codes and codes[0] == 5 and len(codes) > 1:
        return xterm256(codes[1]), codes[2:]
    if codes and codes[0] == 2 and len(codes) > 3:
        return "#%02x%02x%02x" % tuple(codes[1:4]), codes[4:]
    return None, codes[1:]


def convert(text):
    fg = bg = None
    bold = False
    out = []
    for part in re.split(r"(\x1b\[[0-9;]*m)", text):
        m = re.fullmatch(r"\x1b\[([0-9;]*)m", part)
        if not m:
            if part:
                style = []
                if fg:
                    style.append("color:" + fg)
                if bg:
                    style.append("background:" + bg)
                if bold:
                    style.append("font-weight:bold")
                esc = html.escape(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", part))
                out.append('<span style="%s">%s</span>' % (";".join(style), esc) if style else esc)
            continue
        codes = [int(c) if c else 0 for c in m.group(1).split(";")]
        while codes:
            c, codes = codes[0], codes[1:]
            if c == 0:
                fg = bg = None
                bold = False
            elif c == 1:
                bold = True
            elif c == 22:
                bold = False
            elif 30 <= c <= 37 or 90 <= c <= 97:
                fg = BASIC[c - 30 if c < 90 else c - 82]
            elif 40 <= c <= 47 or 100 <= c <= 107:
                bg = BASIC[c - 40 if c < 100 else c - 92]
            elif c == 39:
                fg = None
            elif c == 49:
                bg = None
            elif c in (38, 48):
                colour, codes = extended(codes)
                if c == 38:
                    fg = colour
                else:
                    bg = colour
    return "".join(out)


def main():
    body = convert(sys.stdin.read())
    sys.stdout.write(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><style>\n"
        "html,body{margin:0;background:%s}\n"
        "pre{margin:0;padding:16px 20px;color:%s;font:13px/1.35 'DejaVu Sans Mono','Liberation Mono',monospace}\n"
        "</style></head><body><pre>%s</pre></body></html>\n" % (BG, FG, body))


if __name__ == "__main__":
    main()
