#!/usr/bin/env python3
"""The dry (unmastered) gong and timer tones of NoiseClock, by additive modal synthesis.

    make-gongs.py ID OUT.f32      ID: singing-bowl | soft-bell | timer-chime

Writes raw 32-bit float, little-endian, mono, 44.1 kHz samples; scripts/make-sounds.sh adds a
little room (sox reverb), shapes the end, masters and encodes them. Python 3 standard library
only, no randomness but a seeded generator: every run writes the same samples.

A struck bowl or bell rings in a few modes whose frequencies are not whole multiples of the
lowest one. An imperfectly round bowl splits each mode into a pair a fraction of a Hz to a few Hz
apart; the pair beats (the slow "wah-wah" of a singing bowl). Each mode decays exponentially,
the higher ones faster. A felt mallet gives a soft start (a raised-cosine rise of a few ms, so
the first sample is 0) and a faint low thud.
"""

import array
import cmath
import math
import random
import sys

RATE = 44100


class Mode:
    """One mode of a struck body: frequency ratio to the note's fundamental, amplitude, decay
    time constant tau (s: the amplitude falls by 1/e every tau, 60 dB in 6.9 tau), and the split
    of the pair (Hz); the upper member of the pair has `balance` times the lower one's share."""

    def __init__(self, ratio, amp, tau, split, balance=0.7):
        self.ratio, self.amp, self.tau, self.split, self.balance = ratio, amp, tau, split, balance


def strike(out, start, f0, modes, attack, thud=0.0, thud_len=0.04, seed=1):
    """Adds one strike at sample `start` of a body with fundamental f0 to `out` (a list)."""
    n_total = len(out)
    rise = max(1, int(attack * RATE))
    # Each mode as two damped complex oscillators z[k+1] = z[k] * w; the signal is the imaginary
    # part (sine phase 0), so every partial starts at 0.
    oscs = []
    for m in modes:
        f = f0 * m.ratio
        if f >= RATE * 0.45:
            continue
        lower = 1.0 / (1.0 + m.balance)
        for freq, share in ((f - m.split / 2, lower), (f + m.split / 2, 1.0 - lower)):
            w = cmath.exp(complex(-1.0 / (m.tau * RATE), 2 * math.pi * freq / RATE))
            oscs.append([complex(m.amp * share, 0.0), w, m.tau])
    # Render until every oscillator is 100 dB down or the buffer ends.
    longest = max(o[2] for o in oscs)
    length = min(n_total - start, int(longest * 11.5 * RATE))
    for i in range(length):
        s = 0.0
        for o in oscs:
            s += o[0].imag
            o[0] *= o[1]
        if i < rise:
            s *= 0.5 - 0.5 * math.cos(math.pi * i / rise)
        out[start + i] += s
    if thud > 0:
        # The mallet's felt: a short burst of noise through two one-pole low-passes (~300 Hz),
        # rising over `attack` and dying away over `thud_len`.
        gen = random.Random(seed)
        a = math.exp(-2 * math.pi * 300 / RATE)
        y1 = y2 = 0.0
        n = min(n_total - start, int(thud_len * 6 * RATE))
        for i in range(n):
            x = gen.uniform(-1.0, 1.0)
            y1 = (1 - a) * x + a * y1
            y2 = (1 - a) * y1 + a * y2
            env = math.exp(-i / (thud_len * RATE))
            if i < rise:
                env *= 0.5 - 0.5 * math.cos(math.pi * i / rise)
            out[start + i] += thud * 8.0 * y2 * env


def singing_bowl():
    # A Tibetan bowl struck with a felt mallet: fundamental 220 Hz (A3), partials at the ratios
    # measured on real bowls (about 2.7, 5.1-5.4, 8.2-8.5, 12), each split into a beating pair.
    f0 = 220.0
    modes = [
        Mode(1.000, 1.00, 5.2, 0.55, 0.5),    # beats every 1.8 s, dips of 9.5 dB
        Mode(2.720, 0.50, 3.1, 1.15),         # 0.9 s
        Mode(5.190, 0.20, 1.7, 1.90),
        Mode(8.330, 0.075, 0.95, 2.70),
        Mode(12.05, 0.025, 0.55, 3.40),
    ]
    out = [0.0] * (28 * RATE)
    strike(out, 0, f0, modes, attack=0.006, thud=0.020, thud_len=0.035, seed=11)
    return out


def soft_bell():
    # A small brass meditation bell (a rin) tapped gently: brighter and shorter than the bowl,
    # fundamental 660 Hz (E5), the same family of inharmonic ratios, faster beating.
    f0 = 660.0
    modes = [
        Mode(1.000, 1.00, 2.1, 1.30, 0.55),
        Mode(2.690, 0.42, 1.3, 2.10),
        Mode(5.080, 0.17, 0.70, 3.00),
        Mode(8.210, 0.06, 0.40, 4.20),
    ]
    # Struck 10 ms in: the MP3 encoder smears a quick rise a little backwards in time (pre-echo),
    # and in those 10 ms it stays at the level of a few LSB instead of starting the file at -43 dBFS.
    out = [0.0] * (11 * RATE)
    strike(out, int(0.010 * RATE), f0, modes, attack=0.005, thud=0.006, thud_len=0.012, seed=12)
    return out


def timer_chime():
    # Three rising notes of a glockenspiel-like bar chime (G5 C6 E6, 0.18 s apart), each ringing
    # about 3 s (fundamental tau 0.48 s: -47 dB 3 s later). Rendered LOOP + 3 s long: make-sounds.sh
    # folds everything after LOOP (3 s) back onto the start, so the loop is seamless.
    notes = [(0.00, 783.99, 0.9), (0.18, 1046.50, 0.85), (0.36, 1318.51, 1.0)]
    modes = [
        Mode(1.000, 1.00, 0.48, 0.9, 0.6),
        Mode(2.000, 0.06, 0.30, 0.0),     # a faint octave: warmth
        Mode(2.756, 0.14, 0.14, 1.6),     # the bar's inharmonic second mode: the "tink"
        Mode(4.000, 0.16, 0.22, 1.2),     # the tuned overtone of a vibraphone-style bar
        Mode(5.404, 0.04, 0.07, 2.0),
    ]
    out = [0.0] * (6 * RATE)
    for k, (t, f, gain) in enumerate(notes):
        strike(out, int(t * RATE), f, [Mode(m.ratio, m.amp * gain, m.tau, m.split, m.balance) for m in modes],
               attack=0.002, thud=0.004, thud_len=0.006, seed=20 + k)
    return out


def main():
    makers = {"singing-bowl": singing_bowl, "soft-bell": soft_bell, "timer-chime": timer_chime}
    if len(sys.argv) != 3 or sys.argv[1] not in makers:
        sys.exit("usage: make-gongs.py %s OUT.f32" % "|".join(makers))
    samples = makers[sys.argv[1]]()
    peak = max(abs(s) for s in samples) or 1.0
    data = array.array("f", (s / peak * 0.5 for s in samples))
    if sys.byteorder == "big":
        data.byteswap()
    with open(sys.argv[2], "wb") as f:
        data.tofile(f)


if __name__ == "__main__":
    main()
