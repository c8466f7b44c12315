#!/usr/bin/env python3
"""Rebuilds the face's fonts from Debian's font packages (the recipe, not run at build time).

    apt-get install fonts-inter fonts-jetbrains-mono fonts-comfortaa fonts-ebgaramond
    pip install fonttools brotli
    python3 scripts/make-fonts.py    # writes the .woff2 files into Resources/face/fonts

Clock faces: digits, colon and AM/PM only, lining tabular figures frozen into the cmap. UI face:
ASCII, German and typographic extras. Renamed "NoiseClock ..." (OFL Reserved Font Names).
Weights that look nearly like a neighbour are left out to keep the face under 200 KB (SPEC §9);
face.css gives each file a weight range, so every weight 100-900 still finds the nearest one.
"""
import os
import re
from fontTools.ttLib import TTFont
from fontTools import subset

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Resources", "face", "fonts")
INTER = "/usr/share/fonts/opentype/inter/"
MONO = "/usr/share/fonts/truetype/jetbrains-mono/"
WEIGHTS = {100: "Thin", 200: "ExtraLight", 300: "Light", 400: "Regular", 500: "Medium",
           600: "SemiBold", 700: "Bold", 800: "ExtraBold", 900: "Black"}
CLOCK_TEXT = "0123456789:APM "
# ASCII, German, the most common accents of names, typographic punctuation; other characters fall
# back to the system's font (the face stays under 200 KB).
UI_UNICODES = ("U+0020-007E,U+00A0,U+00B7,U+00C4,U+00D6,U+00DC,U+00DF,U+00E0-00E1,U+00E4,U+00E7-00E9,U+00F1,"
               "U+00F6,U+00FC,U+2013-2014,U+2018-201A,U+201C-201E,U+2022,U+2026,U+202F,U+2212")

JOBS = [(f"{INTER}InterDisplay-{n}.otf", f"clock-sans-{w}.woff2", "NoiseClock Clock Sans")
        for w, n in WEIGHTS.items() if w in (100, 300, 400, 700)]
JOBS += [(f"{MONO}JetBrainsMono-{n}.ttf", f"clock-mono-{w}.woff2", "NoiseClock Clock Mono")
         for w, n in WEIGHTS.items() if w in (400, 700)]
JOBS += [(f"/usr/share/fonts/truetype/comfortaa/Comfortaa-{n}.ttf", f"clock-rounded-{w}.woff2", "NoiseClock Clock Rounded")
         for w, n in {300: "Light", 700: "Bold"}.items()]
JOBS += [(f"/usr/share/fonts/opentype/ebgaramond/EBGaramond12-{n}.otf", f"clock-serif-{w}.woff2", "NoiseClock Clock Serif")
         for w, n in {400: "Regular"}.items()]
JOBS += [(f"{INTER}Inter-{n}.otf", f"ui-{w}.woff2", "NoiseClock UI") for w, n in {400: "Regular", 600: "SemiBold"}.items()]


def freeze_figures(font):
    """Maps the digits to their lining, tabular forms (old-style figures are the default in some faces)."""
    if "GSUB" not in font:
        return
    gsub = font["GSUB"].table
    cmap = font.getBestCmap()
    for tag in ("lnum", "tnum"):
        for record in gsub.FeatureList.FeatureRecord:
            if record.FeatureTag != tag:
                continue
            for index in record.Feature.LookupListIndex:
                for sub in gsub.LookupList.Lookup[index].SubTable:
                    mapping = getattr(sub, "mapping", None)
                    if not mapping:
                        continue
                    for digit in "0123456789":
                        glyph = cmap.get(ord(digit))
                        if glyph in mapping:
                            for table in font["cmap"].tables:
                                if table.isUnicode() and ord(digit) in table.cmap:
                                    table.cmap[ord(digit)] = mapping[glyph]
            cmap = font.getBestCmap()


def rename(font, family):
    for record in font["name"].names:
        text = record.toUnicode()
        if record.nameID in (1, 16, 21):
            text = family
        elif record.nameID in (4, 6):
            text = family.replace(" ", "") if record.nameID == 6 else family
        text = re.sub(r"[a-z]+://", "", text)  # no web addresses in the served files
        record.string = text


def build(source, target, family, clock):
    font = TTFont(source, recalcTimestamp=False)  # reproducible: the same bytes on every run
    if clock:
        freeze_figures(font)
    options = subset.Options()
    options.flavor = "woff2"
    options.hinting = False
    options.desubroutinize = True
    options.name_IDs = [1, 2, 4, 6, 16, 17]  # the copyright notices and the licence are in OFL.txt beside
    # No kerning in the UI face: its GPOS table was a fifth of the file.
    options.layout_features = [] if clock else ["tnum"]
    subsetter = subset.Subsetter(options)
    if clock:
        subsetter.populate(text=CLOCK_TEXT)
    else:
        subsetter.populate(unicodes=subset.parse_unicodes(UI_UNICODES))
    subsetter.subset(font)
    rename(font, family)
    font.flavor = "woff2"
    font.save(os.path.join(HERE, target))


if __name__ == "__main__":
    for source, target, family in JOBS:
        build(source, target, family, clock=target.startswith("clock-"))
        print(f"{os.path.getsize(os.path.join(HERE, target)):6d}  {target}")
