"""A flame graph as SVG from collapsed stacks ('frame;frame;... COUNT'): the root at the bottom,
each frame as wide as its samples, a tooltip (title) per frame with its share; frames narrower than
MIN_SHARE of the whole are left out, so a profile's file (about 100 KB) fits a published result."""
import collections
import html
import zlib

WIDTH, ROW, FONT = 1200, 16, 11
MIN_SHARE = 0.005
# Java frames (a package path), JDK/VM native frames, the thread-kind roots: a hue range each
HUES = {"java": (95, 140), "native": (0, 25), "root": (200, 230)}


def tree(stacks):
    """{(frame, ...): count} -> nested {frame: [count, children]} from the root."""
    root = [0, {}]
    for stack, n in stacks.items():
        root[0] += n
        node = root
        for frame in stack:
            node = node[1].setdefault(frame, [0, {}])
            node[0] += n
    return root


def _kind(frame, depth):
    if depth == 0:
        return "root"
    return "java" if "/" in frame or "." in frame else "native"


def _color(frame, depth):
    lo, hi = HUES[_kind(frame, depth)]
    h = lo + zlib.crc32(frame.encode()) % (hi - lo + 1)
    return f"hsl({h},70%,{62 + zlib.crc32(frame[::-1].encode()) % 14}%)"


def _label(frame, width_px):
    chars = int(width_px // (FONT * 0.6))
    if chars < 3:
        return ""
    short = frame.rsplit("/", 1)[-1]
    return short if len(short) <= chars else short[:chars - 2] + ".."


def svg(stacks, title):
    """STACKS {(frame, ...): count} -> the SVG text of their flame graph, titled TITLE."""
    root = tree(stacks)
    total = root[0] or 1
    rects, depth_max = [], 0

    def walk(children, x, depth):
        nonlocal depth_max
        for frame, (n, kids) in sorted(children.items()):
            w = WIDTH * n / total
            if n / total >= MIN_SHARE:
                depth_max = max(depth_max, depth)
                rects.append((x, depth, w, frame, n))
                walk(kids, x, depth + 1)
            x += w

    walk(root[1], 0.0, 0)
    height = (depth_max + 1) * ROW + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'font-family="monospace" font-size="{FONT}"><style>rect{{height:{ROW - 1}px}}</style>'
           f'<rect width="100%" style="height:100%" fill="#fdfdf6"/>',
           f'<text x="4" y="16" font-size="13">{html.escape(title)}: {root[0]:,} samples</text>']
    for x, depth, w, frame, n in rects:
        y = height - (depth + 1) * ROW - 4
        tip = html.escape(f"{frame}: {n:,} samples, {100 * n / total:.2f} %")
        out.append(f'<rect x="{x:.1f}" y="{y}" width="{max(w - 0.5, 0.1):.1f}" '
                   f'fill="{_color(frame, depth)}"><title>{tip}</title></rect>')
        label = _label(frame, w)
        if label:
            out.append(f'<text x="{x + 2:.1f}" y="{y + ROW - 4}">{html.escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def merge(stacks_list):
    """Several {(frame, ...): count} summed."""
    out = collections.Counter()
    for s in stacks_list:
        out.update(s)
    return out
