"""Drawing libraries on the same work: a board (1200x1442) built from a background copy, 80 card
sprites (96x134 with antialiased corners) pasted through alpha, 40 short texts, then encoded as
PNG. CPU ms per board (process_time), mean of N; PNG size.

    python docs/issue35/libraries.py pillow    # Pillow, or pillow-simd in its own environment
    python docs/issue35/libraries.py others    # pyvips, skia-python, pycairo

BOARD is a board picture (RGB PNG) and CARD a card with an alpha channel, drawn by the bot
(see BENCHMARKS.md); FONT the bundled bold font.
"""
# ruff: noqa
import io
import statistics
import sys
import time
from pathlib import Path

N = 30
ROOT = Path(__file__).resolve().parents[2]
BOARD = str(ROOT / "tests/bot/data/golden/board-4-classic-left.png")
CARD = str(Path(__file__).with_name("card.png"))  # a 7 of hearts as the bot draws it, RGBA
FONT = str(ROOT / "bot/pictures/assets/DejaVuSans-Bold.ttf")
POS = [(14 + (i % 10) * 118, 330 + (i // 10) * 130) for i in range(80)]
TEXTS = [(f"Player {i}: 7H from hand -> C{i % 4 + 1}", 20 + (i % 20) * 60, 40 + (i // 20) * 30) for i in range(40)]
def run(name, build, encode):
    ts_b, ts_e, sizes = [], [], []
    for _ in range(N):
        s = time.process_time(); img = build(); m = time.process_time(); data = encode(img); e = time.process_time()
        ts_b.append(m - s); ts_e.append(e - m); sizes.append(len(data))
    print(f"{name:42s} compose {statistics.mean(ts_b)*1000:6.2f} ms  encode {statistics.mean(ts_e)*1000:6.2f} ms  {sizes[0]/1024:6.1f} KB", flush=True)

def pillow(label):
    from PIL import Image, ImageDraw, ImageFont
    from isal import isal_zlib
    import struct, zlib
    base = Image.open(BOARD).convert("RGB"); base.load()
    card = Image.open(CARD); card.load(); alpha = card.getchannel("A"); card_rgb = card.convert("RGB")
    font = ImageFont.truetype(FONT, 30, layout_engine=ImageFont.Layout.BASIC)
    masks = {}
    def build():
        b = base.copy()
        for p in POS:
            b.paste(card_rgb, p, alpha)
        for t, x, y in TEXTS:
            m = masks.get(t)
            if m is None:
                m = masks[t] = font.getmask(t)  # rasterised once, as the bot does
                m = masks[t] = Image.frombytes("L", m.size, bytes(m))
            b.paste((240, 240, 230), (x, y, x + m.width, y + m.height), m)
        return b
    def png_pillow(img):
        o = io.BytesIO(); img.save(o, "PNG", compress_level=1); return o.getvalue()
    run(f"{label} RGB, PNG level 1", build, png_pillow)
    pal = Image.open(BOARD).convert("RGB").convert("P", palette=Image.Palette.ADAPTIVE, colors=256)
    def png_palette(img):
        q = img.quantize(palette=pal, dither=Image.Dither.NONE)
        w, h = q.size
        rows = q.crop((-1, 0, w, h)).tobytes()
        return isal_zlib.compress(rows, 1)
    run(f"{label} RGB, fixed palette + ISA-L", build, png_palette)
    basep = base.quantize(palette=pal, dither=Image.Dither.NONE)
    cardp = card_rgb.quantize(palette=pal, dither=Image.Dither.NONE)
    solid = alpha.point([0] * 255 + [255])
    def buildp():
        b = basep.copy()
        for p in POS:
            b.paste(cardp, p, solid)  # the bot blends the corners once and pastes the result
        for t, x, y in TEXTS:
            m = masks[t]
            b.paste(cardp.crop((0, 0, m.width, m.height)), (x, y), m.point([0] + [255] * 255))
        return b
    def png_p(img):
        w, h = img.size
        return isal_zlib.compress(img.crop((-1, 0, w, h)).tobytes(), 1)
    run(f"{label} drawn in a palette (P), ISA-L", buildp, png_p)

def vips():
    import pyvips
    base = pyvips.Image.new_from_file(BOARD).copy_memory()
    card = pyvips.Image.new_from_file(CARD).copy_memory()
    texts = {t: pyvips.Image.text(t, fontfile=FONT, font="DejaVu Sans Bold 22", dpi=72).copy_memory() for t, _, _ in TEXTS}
    def build():
        imgs = [card] * len(POS) + [texts[t].new_from_image([240, 240, 230]).bandjoin(texts[t]).copy(interpretation="srgb") for t, _, _ in TEXTS]
        xs = [p[0] for p in POS] + [x for _, x, _ in TEXTS]
        ys = [p[1] for p in POS] + [y for _, _, y in TEXTS]
        out = base.composite(imgs, "over", x=xs, y=ys)
        return out.copy_memory()
    run("pyvips composite", build, lambda im: im.pngsave_buffer(compression=1))
    run("pyvips composite, PNG palette (libimagequant)", build, lambda im: im.pngsave_buffer(compression=1, palette=True, effort=1))
    run("pyvips composite, WebP lossless", build, lambda im: im.webpsave_buffer(lossless=True, effort=0))

def skia_():
    import skia
    base = skia.Image.open(BOARD); card = skia.Image.open(CARD)
    font = skia.Font(skia.Typeface.MakeFromFile(FONT), 30)
    paint = skia.Paint(AntiAlias=True, Color=skia.ColorSetRGB(240, 240, 230))
    def build():
        surf = skia.Surface(1200, 1442)
        c = surf.getCanvas()
        c.drawImage(base, 0, 0)
        for x, y in POS:
            c.drawImage(card, x, y)
        for t, x, y in TEXTS:
            c.drawString(t, x, y + 24, font, paint)
        return surf.makeImageSnapshot()
    run("skia-python raster", build, lambda im: bytes(im.encodeToData(skia.EncodedImageFormat.kPNG, 100)))

def cairo_():
    import cairo
    base = cairo.ImageSurface.create_from_png(BOARD); card = cairo.ImageSurface.create_from_png(CARD)
    def build():
        s = cairo.ImageSurface(cairo.FORMAT_RGB24, 1200, 1442)
        c = cairo.Context(s)
        c.set_source_surface(base, 0, 0); c.paint()
        for x, y in POS:
            c.set_source_surface(card, x, y); c.paint()
        c.select_font_face("DejaVu Sans", cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_BOLD); c.set_font_size(30)
        c.set_source_rgb(240 / 255, 240 / 255, 230 / 255)
        for t, x, y in TEXTS:
            c.move_to(x, y + 24); c.show_text(t)
        s.flush(); return s
    def enc(s):
        o = io.BytesIO(); s.write_to_png(o); return o.getvalue()
    run("pycairo", build, enc)

which = sys.argv[1]
if which == "pillow":
    import PIL
    pillow(f"Pillow {PIL.__version__}")
elif which == "simd":
    import PIL
    pillow(f"pillow-simd {PIL.__version__}")
else:
    for f in (vips, skia_, cairo_):
        try:
            f()
        except Exception as exc:
            print(f.__name__, "failed:", type(exc).__name__, exc)
