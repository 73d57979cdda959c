#!/usr/bin/env python3
"""Reference values for vista's PP-OCRv4 pipeline (src/ocr), from RapidOCR itself.

Renders small test images with DejaVu fonts, saves them as JPEG under tests/data/ocr/, runs
`rapidocr-onnxruntime==1.4.4` (default configuration: det limit_type=min 736, thresh 0.3,
box_thresh 0.5, unclip 1.6, dilation, cls on, rec batch 6, text_score 0.5) on the saved files
and writes tests/data/ocr/reference.json: per image the boxes (4 corners, pixels), texts and
scores. One large frame is also read through a region of interest (a square crop around a
point, clamped inside the frame, as `vista::ocr::roi` does) so the crop-and-map-back path has
its own reference.

Usage (reference venv):
    /root/.cache/vista/refvenv/bin/pip install rapidocr-onnxruntime==1.4.4 pillow
    /root/.cache/vista/refvenv/bin/python scripts/ref_ocr.py
"""
import json
import math
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from rapidocr_onnxruntime import RapidOCR
import numpy as np
import rapidocr_onnxruntime

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "ocr"
FONTS = Path("/usr/share/fonts/truetype/dejavu")
SANS = str(FONTS / "DejaVuSans.ttf")
BOLD = str(FONTS / "DejaVuSans-Bold.ttf")


def font(path, size):
    return ImageFont.truetype(path, size)


def platform_3():
    img = Image.new("RGB", (320, 140), (250, 250, 250))
    d = ImageDraw.Draw(img)
    d.text((30, 45), "Platform 3", font=font(BOLD, 40), fill=(10, 10, 10))
    return img


def exit_sign():
    img = Image.new("RGB", (240, 120), (0, 128, 60))
    d = ImageDraw.Draw(img)
    d.text((45, 30), "EXIT", font=font(BOLD, 52), fill=(255, 255, 255))
    return img


def two_lines():
    img = Image.new("RGB", (360, 190), (225, 225, 220))
    d = ImageDraw.Draw(img)
    d.text((40, 35), "Room 204", font=font(BOLD, 36), fill=(20, 20, 60))
    d.text((40, 110), "Lecture Hall", font=font(SANS, 32), fill=(20, 20, 60))
    return img


def textured():
    rng = random.Random(7)
    w, h = 400, 180
    img = Image.new("RGB", (w, h))
    px = img.load()
    for y in range(h):
        for x in range(w):
            # A warm diagonal gradient with a faint weave and a little noise.
            base = 150 + 60 * math.sin((x + y) / 23.0) * math.cos((x - y) / 41.0)
            n = rng.randint(-12, 12)
            px[x, y] = (int(min(255, base + 60 + n)), int(base * 0.8 + n), int(base * 0.5 + n))
    d = ImageDraw.Draw(img)
    d.text((38, 60), "Coffee Shop", font=font(BOLD, 44), fill=(20, 30, 110))
    return img


def rotated():
    text = Image.new("RGB", (420, 110), (245, 240, 200))
    d = ImageDraw.Draw(text)
    d.text((30, 25), "Way Out", font=font(BOLD, 48), fill=(120, 10, 10))
    img = text.rotate(6, resample=Image.BICUBIC, expand=True, fillcolor=(245, 240, 200))
    canvas = Image.new("RGB", (460, 200), (245, 240, 200))
    canvas.paste(img, (10, 10))
    return canvas


def big_frame():
    """A 1408x1408 frame (the Aria RGB size) with one sign away from the centre."""
    w = h = 1408
    y = np.linspace(0, 1, h)[:, None]
    x = np.linspace(0, 1, w)[None, :]
    r = 90 + 60 * x + 20 * y
    g = 95 + 40 * y + 0 * x
    b = 100 + 30 * (1 - x)
    arr = np.stack([r + 0 * y, g + 0 * x, b + 0 * y], axis=2).clip(0, 255).astype(np.uint8)
    img = Image.fromarray(arr)
    d = ImageDraw.Draw(img)
    d.rectangle((820, 430, 1130, 540), fill=(30, 60, 150))
    d.text((850, 455), "Gate 12", font=font(BOLD, 56), fill=(255, 255, 255))
    d.rectangle((150, 1100, 420, 1170), fill=(240, 240, 240))
    d.text((165, 1110), "Toilets", font=font(SANS, 42), fill=(0, 0, 0))
    return img


IMAGES = {
    "platform_3.jpg": platform_3,
    "exit.jpg": exit_sign,
    "two_lines.jpg": two_lines,
    "textured.jpg": textured,
    "rotated.jpg": rotated,
    "frame_1408.jpg": big_frame,
}

# Region of interest read on the big frame: centre (the gaze pixel) and square size.
ROI = {"image": "frame_1408.jpg", "center_px": [975.0, 480.0], "size_px": 640}


def roi_origin(w, h, cx, cy, size):
    """Top-left corner of the crop, as vista::ocr::roi computes it."""
    sw, sh = min(size, w), min(size, h)
    x0 = int(min(max(round(cx - sw / 2.0), 0), w - sw))
    y0 = int(min(max(round(cy - sh / 2.0), 0), h - sh))
    return x0, y0, sw, sh


def lines(result):
    out = []
    for box, text, score in result or []:
        out.append({"box": [[float(p[0]), float(p[1])] for p in box], "text": text, "score": float(score)})
    return out


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    engine = RapidOCR()
    ref = {
        "engine": f"rapidocr-onnxruntime {rapidocr_onnxruntime.__name__} 1.4.4 (default config)",
        "note": "boxes: 4 corners (tl, tr, br, bl), pixels of the JPEG as saved; texts and scores from RapidOCR",
        "images": {},
    }
    for name, make in IMAGES.items():
        path = OUT / name
        # 4:4:4 so decoders agree closely; the big frame at a lower quality to stay small.
        make().save(path, quality=80 if name == ROI["image"] else 95, subsampling=0)
        res, _ = engine(str(path))
        ref["images"][name] = lines(res)
        print(name, [(l["text"], round(l["score"], 4)) for l in ref["images"][name]])

    big = Image.open(OUT / ROI["image"]).convert("RGB")
    cx, cy = ROI["center_px"]
    x0, y0, sw, sh = roi_origin(big.width, big.height, cx, cy, ROI["size_px"])
    crop = np.array(big)[y0 : y0 + sh, x0 : x0 + sw, ::-1].copy()  # BGR, as RapidOCR loads
    res, _ = engine(crop)
    roi_lines = lines(res)
    for l in roi_lines:
        l["box"] = [[p[0] + x0, p[1] + y0] for p in l["box"]]
    ref["roi"] = dict(ROI, origin_px=[x0, y0], lines=roi_lines)
    print("roi", x0, y0, [(l["text"], round(l["score"], 4)) for l in roi_lines])

    (OUT / "reference.json").write_text(json.dumps(ref, indent=1) + "\n")


if __name__ == "__main__":
    main()
