#!/usr/bin/env python3
"""Reference decoder for the PNGCodec tests (SPEC §7).

Decodes every valid PNG in a folder with pypng, an independent pure-Python
decoder, into Kiln's canonical samples: RGBA, 8 bits per channel when the
source has at most 8, else 16; palette and tRNS expanded, low bit depths scaled
up by bit replication, sBIT and gamma ignored.

pypng's asDirect()/asRGBA*() rescale to the sBIT depth, which the PNG spec's
sample values do not, so this uses the raw rows of Reader.read() and expands
them here.

Usage: pngref.py INPUT_DIR OUTPUT_DIR
Writes OUTPUT_DIR/<name>.rgba (samples; 16-bit ones big-endian) for every
INPUT_DIR/*.png except x*.png (the corrupt ones), and OUTPUT_DIR/index.tsv with
one line per file: name, width, height, depth (8 or 16).
"""
import os
import sys

try:
    import png
except ImportError:
    sys.exit("pngref.py needs pypng: python3 -m pip install pypng")


def canonical_rows(path):
    """Returns (width, height, depth, rows of canonical RGBA samples)."""
    reader = png.Reader(filename=path)
    width, height, rows, info = reader.read()
    bitdepth = info["bitdepth"]
    if info["planes"] == 1 and not info["greyscale"]:
        # Color type 3 (truecolor files may carry a suggested PLTE too).
        # palette('force') gives RGBA entries with tRNS alpha (255 past its end).
        palette = reader.palette(alpha="force")
        out = [[sample for index in row for sample in palette[index]] for row in rows]
        return width, height, 8, out

    depth = 16 if bitdepth == 16 else 8
    top = (1 << depth) - 1
    scale = top // ((1 << bitdepth) - 1)  # bit replication: 1-bit ×255, 2-bit ×85, 4-bit ×17
    planes = info["planes"]
    key = info.get("transparent")  # tRNS color key, in raw sample values
    if key is not None and not isinstance(key, tuple):
        key = (key,)
    out = []
    for row in rows:
        row = list(row)
        line = []
        for x in range(width):
            pixel = row[x * planes:(x + 1) * planes]
            if info["greyscale"]:
                color, alpha = pixel[:1] * 3, pixel[1:]
                raw_color = tuple(pixel[:1])
            else:
                color, alpha = pixel[:3], pixel[3:]
                raw_color = tuple(pixel[:3])
            if alpha:
                a = alpha[0] * scale
            elif key is not None and raw_color == key:
                a = 0
            else:
                a = top
            line.extend([c * scale for c in color] + [a])
        out.append(line)
    return width, height, depth, out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, target = sys.argv[1], sys.argv[2]
    os.makedirs(target, exist_ok=True)
    index = []
    for name in sorted(os.listdir(source)):
        if not name.endswith(".png") or name.startswith("x"):
            continue
        width, height, depth, rows = canonical_rows(os.path.join(source, name))
        data = bytearray()
        for row in rows:
            if depth == 16:
                for sample in row:
                    data += sample.to_bytes(2, "big")
            else:
                data += bytes(row)
        with open(os.path.join(target, name[:-4] + ".rgba"), "wb") as f:
            f.write(data)
        index.append(f"{name}\t{width}\t{height}\t{depth}\n")
    with open(os.path.join(target, "index.tsv"), "w") as f:
        f.writelines(index)


if __name__ == "__main__":
    main()
