#!/usr/bin/python3
"""The HTML reports of `dnnplace render`, `solve --report` and `compare --report`
in a real browser (issue #25, docs/render.md): headless Chromium loads each one,
the test fails on any console message or uncaught error, checks that the
screenshot is not blank (distinct colours, the device palette present) and that
the dumped DOM holds the SVG elements (one coloured node per graph node in the
full view, one timeline row per device replica, one device-table row each).

Usage: render_browser_test.py DNNPLACE_CLI SHARED_DIR
Without /usr/bin/chromium it fails (scripts/dev.sh installs Debian's chromium)."""

import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 900, 1400


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kwargs)


def chromium(*args):
    return run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr",
                "--v=0", "--hide-scrollbars", *args])


def console_messages(stderr):
    """Chromium's log lines for console messages and uncaught errors ("INFO:CONSOLE:1] ...")."""
    return [line for line in stderr.splitlines()
            if "Uncaught" in line or re.search(r":CONSOLE[:(]", line)]


def png_colours(path):
    """The set of distinct RGB colours of an 8-bit RGB or RGBA PNG (zlib, no imaging library)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + ": not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                fail(path + ": unexpected PNG format depth %d colour %d" % (depth, colour))
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours = set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, previous))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - channels] if i >= channels else 0
                b, c = previous[i], previous[i - channels] if i >= channels else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        if row % 4 == 0:
            for x in range(0, stride, channels * 2):
                colours.add(bytes(line[x:x + 3]))
        previous = line
    return colours


def check_report(html, name, nodes=None):
    """Loads one report: no console message, a screenshot that is not blank, the SVG elements."""
    shot = html + ".png"
    result = chromium("--screenshot=" + shot, "--window-size=%d,%d" % (WIDTH, HEIGHT), "file://" + html)
    for line in console_messages(result.stderr):
        fail(name + ": the browser reported: " + line)
    if not os.path.exists(shot):
        fail(name + ": no screenshot (chromium exit %d): %s" % (result.returncode, result.stderr[-500:]))
    colours = png_colours(shot)
    if len(colours) < 8:
        fail(name + ": the screenshot is blank (%d colours)" % len(colours))
    if bytes((0x4e, 0x79, 0xa7)) not in colours:  # FPGA 0's fill
        fail(name + ": the screenshot shows no FPGA 0 colour")
    dom = chromium("--dump-dom", "file://" + html)
    if dom.returncode != 0 or "</html>" not in dom.stdout:
        fail(name + ": --dump-dom failed: " + dom.stderr[-500:])
    text = dom.stdout
    for line in console_messages(dom.stderr):
        fail(name + ": the browser reported: " + line)
    svgs = text.count("<svg")
    devices = re.findall(r'<tr class="device" data-device="[^"]*"[^>]*data-replicas="(\d+)"', text)
    if not devices:
        fail(name + ": no device table rows in the DOM")
    if text.count('class="device-bars"') < len(devices):
        fail(name + ": %d load bars for %d devices" % (text.count('class="device-bars"'), len(devices)))
    rows = len(re.findall(r'<g class="row[ "]', text))
    latency = 'class="timeline latency"' in text
    want_rows = len(devices) if latency else sum(int(r) for r in devices)
    if rows < want_rows:
        fail(name + ": %d timeline rows for %d device rows" % (rows, want_rows))
    graph_nodes = text.count('class="node"')
    if nodes is not None and graph_nodes < nodes:
        fail(name + ": %d graph nodes drawn for %d in the workload" % (graph_nodes, nodes))
    if svgs < 3:
        fail(name + ": %d SVG views" % svgs)
    print("ok %s: %d colours, %d SVGs, %d graph nodes, %d timeline rows, %d devices"
          % (name, len(colours), svgs, graph_nodes, rows, len(devices)))


def main():
    if len(sys.argv) != 3:
        fail("usage: render_browser_test.py DNNPLACE_CLI SHARED_DIR")
    cli, shared = sys.argv[1], sys.argv[2]
    if not os.path.exists(CHROMIUM):
        fail(CHROMIUM + " is missing: install Debian's chromium (scripts/dev.sh does)")
    bad = chromium("--dump-dom", "data:text/html,<script>undefinedFunction()</script>")
    if not console_messages(bad.stderr):  # the check itself must see a page's error
        fail("chromium's log showed no uncaught error for a failing page: " + bad.stderr[-300:])
    with tempfile.TemporaryDirectory() as tmp:
        def cli_ok(*args):
            result = run([cli, *args])
            if result.returncode != 0:
                fail("dnnplace " + " ".join(args) + ": exit %d: %s" % (result.returncode, result.stderr))

        # A generated training workload, full view: one node per graph node.
        work = os.path.join(tmp, "cnn.json")
        cli_ok("generate", "cnn", "--blocks", "3", "--training", "--accelerators", "3", "--out", work)
        nodes = len(json.load(open(work))["nodes"])
        plan, report = os.path.join(tmp, "cnn.plan.json"), os.path.join(tmp, "cnn.html")
        cli_ok("solve", work, "--quiet", "--out", plan, "--report", report)
        check_report(report, "solve --report (generated cnn)", nodes)
        compared = os.path.join(tmp, "compare.html")
        cli_ok("compare", work, "--methods", "dp,scotch", "--quiet", "--time-limit", "5", "--report", compared)
        check_report(compared, "compare --report")
        # The paper's workloads with the experts' plans, both objectives.
        experts = os.path.join(shared, "workloads", "experts")
        if not os.path.isdir(experts):
            fail(experts + " is missing (DNNPLACE_SHARED_DIR)")
        for objective, model in (("throughput", "bert24_inference"), ("latency", "resnet50_inference"),
                                 ("throughput", "gnmt_training")):
            work = os.path.join(shared, "workloads", objective, "LayerGraphs", model + ".json")
            nodes = len(json.load(open(work))["nodes"])
            out = os.path.join(tmp, "%s_%s.html" % (objective, model))
            cli_ok("render", work, os.path.join(experts, model + "_expert.json"), "--objective", objective,
                   "--detail", "full", "--out", out)
            check_report(out, "render %s expert (%s)" % (model, objective), nodes)
    print("all reports load cleanly")


if __name__ == "__main__":
    main()
