#!/usr/bin/env bash
# Makes NoiseClock's sound catalog from nothing but sox, lame and python3 (Debian packages: sox,
# lame, python3; the python script uses its standard library only):
#   Resources/sounds/<id>.mp3        looping sleep sounds (noise, rain, fan, nature)
#   Resources/alarm-sounds/<id>.mp3  looping alarm tones
#   Resources/gongs/<id>.mp3         meditation gongs and the (looping) timer chime (SPEC §10)
#   Resources/sounds.json, Resources/alarm-sounds.json, Resources/gong-sounds.json   the catalogs
# Every file is made from scratch in a temporary folder on each run and checked; only when all
# checks pass do the new files replace the old ones (the MP3s in the three folders are all ours).
# sox runs with -R (fixed random seed), so a run repeats the same audio on the same sox version.
#
# Noise loops: each noise layer is made LOOP+XF seconds long (after a skipped warm-up), then its
# last XF seconds are cross-faded (equal power) into its first XF seconds and it is cut to LOOP
# seconds, so the last sample is followed in the source by what is now the first one: the loop
# has no seam. Filters run before that step; only memoryless things (slow amplitude modulation
# whose period divides LOOP, sine tones with a whole number of cycles in LOOP, gain) run after.
# Alarm tones are patterns that start at silence (or phase 0) and end at silence (or phase 0).
# Gongs are struck bowls and bells, by modal synthesis in scripts/make-gongs.py (sox has no
# exponential envelopes): a few inharmonic partials, each a slowly beating pair, each decaying
# exponentially; sox adds a little room, and the timer chime's ringing past its loop length is
# folded back onto its start (so its loop is seamless).
#
# MP3s: 44.1 kHz mono CBR (the player upmixes). lame writes its LAME/Xing tag with the encoder
# delay and padding, which libmpg123 uses for gapless playback: keep it (no --nores, no -t).
# The script ends by decoding every file again and checking length, size, level and seam.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
for tool in sox soxi lame awk od python3; do
  command -v "$tool" >/dev/null || { echo "make-sounds: $tool is missing (Debian packages: sox lame python3)" >&2; exit 1; }
done

readonly RATE=44100
readonly LOOP=48            # noise loop length, s (the slow modulations below, 8, 12 and 16 s, divide it)
readonly XF=4               # cross-fade at the loop point, s
readonly WARM=1             # generator/filter warm-up skipped at the start of each layer, s
readonly L=$((LOOP * RATE)) X=$((XF * RATE))
readonly NOISE_KBPS=96      # 48 s x 96 kbit/s = 576 kB
readonly ALARM_KBPS=128
readonly GONG_KBPS=64       # 28 s x 64 kbit/s = 224 kB
readonly MAX_BYTES=1000000
readonly GONG_MAX_BYTES=300000

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out
sounds_dir=$out/sounds
alarms_dir=$out/alarm-sounds
gongs_dir=$out/gongs

F=(-e floating-point -b 32)            # intermediate files: 32-bit float WAV
sx() { sox -R -V2 "$@"; }              # repeatable, warnings shown
gen() { local channels=$1; shift; sx -r $RATE -c "$channels" -n "$@"; }   # gen CH OUT effects...
db2lin() { awk -v d="$1" 'BEGIN { printf "%.6f", 10 ^ (d / 20) }'; }
stat_db() { sox -V1 "$1" -n stats 2>&1 | awk -v k="$2" '$1 == k && $2 == "lev" { print $4 }'; }   # k = RMS | Pk

# Pink (-3 dB/octave) filter for white noise at 44.1 kHz: J. O. Smith's 3-pole/3-zero fit
# (b = .049922035 -.095993537 .050612699 -.004408786, a = 1 -2.494956002 2.017265875 -.5221894),
# split into a first-order section (carrying the gain, so nothing overflows in between) and a
# biquad. sox's own pinknoise is not used: at full scale it overflows now and then and wraps from
# +1 to -1, a loud click.
PINK=(biquad 0.049922035 -0.0053906260 0 1 -0.5559452594 0
      biquad 1 -1.8148881760 0.8178616053 1 -1.9390107426 0.9392820448)

# noise OUT TYPE SEED [effects...]: LOOP+XF seconds of white/pink/brown noise, then the effects.
# With -R every sox run starts the same random stream, so layers would be copies of one another:
# synth makes 16 channels (which take turns drawing from the stream) and SEED (1-16) picks one.
noise() {
  local out=$1 type=$2 seed=$3; shift 3
  local src
  case $type in
    white) src=(whitenoise remix "$seed" vol 0.25) ;;
    pink)  src=(whitenoise remix "$seed" vol 0.25 "${PINK[@]}") ;;
    brown) src=(brownnoise remix "$seed" vol 0.25) ;;
    *) echo "make-sounds: unknown noise $type" >&2; exit 1 ;;
  esac
  gen 16 "${F[@]}" "$out" synth -n $((WARM * RATE + L + X))s "${src[@]}" "$@" trim $((WARM * RATE))s
}
hz() { awk -v p="$1" 'BEGIN { printf "%.12f", 1 / p }'; }   # hz PERIOD_S: frequency of that period

# loopify IN OUT: cross-fade the tail (LOOP..LOOP+XF) into the head (0..XF), keep LOOP seconds.
loopify() {
  local in=$1 out=$2
  sx "$in" "${F[@]}" "$work/head.wav" trim 0 ${X}s fade q ${X}s
  sx "$in" "${F[@]}" "$work/tail.wav" trim ${L}s ${X}s fade q 0 ${X}s ${X}s
  sx -m -v 1 "$work/head.wav" -v 1 "$work/tail.wav" "${F[@]}" "$work/seam.wav"
  sx "$in" "${F[@]}" "$work/body.wav" trim ${X}s $((L - X))s
  sx "$work/seam.wav" "$work/body.wav" "${F[@]}" "$out"
}

# level IN OUT DB: scale to DB dBFS RMS.
level() { sx "$1" "${F[@]}" "$2" gain "$(awk -v t="$3" -v r="$(stat_db "$1" RMS)" 'BEGIN { print t - r }')"; }

# mix OUT DB1 IN1 DB2 IN2 ...: sum of the inputs, each scaled by its gain in dB.
mix() {
  local out=$1; shift
  local args=()
  while [ $# -gt 0 ]; do args+=(-v "$(db2lin "$1")" "$2"); shift 2; done
  sx -m "${args[@]}" "${F[@]}" "$out"
}

# master_noise IN ID: about -18 dBFS RMS, never above -6 dBFS peak, 16 bit, MP3.
master_noise() {
  local in=$1 id=$2
  local g
  g=$(awk -v r="$(stat_db "$in" RMS)" -v p="$(stat_db "$in" Pk)" \
      'BEGIN { a = -18 - r; b = -6 - p; printf "%.3f", (a < b ? a : b) }')
  sx -D "$in" -b 16 "$work/$id.16.wav" gain "$g"
  lame --nohist --quiet --cbr -b $NOISE_KBPS -q 2 -m m --resample 44.1 "$work/$id.16.wav" "$sounds_dir/$id.mp3"
}

# master_alarm IN ID: peak -3 dBFS, 16 bit, MP3.
master_alarm() {
  local in=$1 id=$2
  sx -D "$in" -b 16 "$work/$id.16.wav" gain -n -3
  lame --nohist --quiet --cbr -b $ALARM_KBPS -q 2 -m m --resample 44.1 "$work/$id.16.wav" "$alarms_dir/$id.mp3"
}

# master_gong IN ID: peak -3 dBFS like the alarm tones, 16 bit, MP3 (a lower rate: they are long).
master_gong() {
  local in=$1 id=$2
  sx -D "$in" -b 16 "$work/$id.16.wav" gain -n -3
  lame --nohist --quiet --cbr -b $GONG_KBPS -q 2 -m m --resample 44.1 "$work/$id.16.wav" "$gongs_dir/$id.mp3"
}

mkdir -p "$sounds_dir" "$alarms_dir" "$gongs_dir"
w=$work

# ---------------------------------------------------------------------------------------------
# Noise

# white-noise: flat, full band.
noise "$w/white.raw.wav" white 1
loopify "$w/white.raw.wav" "$w/white.wav"
master_noise "$w/white.wav" white-noise

# pink-noise: -3 dB/octave (white noise through PINK), rumble below 20 Hz removed.
noise "$w/pink.raw.wav" pink 2 highpass 20
loopify "$w/pink.raw.wav" "$w/pink.wav"
master_noise "$w/pink.wav" pink-noise

# brown-noise: -6 dB/octave (sox's brown), DC and sub-sonic drift removed.
noise "$w/brown.raw.wav" brown 3 highpass 20 highpass 20
loopify "$w/brown.raw.wav" "$w/brown.wav"
master_noise "$w/brown.wav" brown-noise

# heavy-rain-white-noise: band-passed rain hiss + randomly timed droplet ticks + low rumble,
# with a slow 2 dB swell (period 16 s).
noise "$w/rain.hiss.wav" pink 4 sinc 250-11000 equalizer 3500 1.2q 3
noise "$w/rain.air.wav" white 5 sinc 2000-9000
noise "$w/rain.rumble.wav" brown 6 highpass 25 lowpass 140 lowpass 140
# 16 droplet variants: short noise ticks, band-passed at different pitches, decaying fast, at
# different loudness. Their times come from a Park-Miller generator in awk (same on every awk).
for v in $(seq 0 15); do
  read -r len fc gain_db < <(awk -v v="$v" 'BEGIN {
    x = 48271 * (v + 1); for (i = 0; i < 3; i++) x = (x * 16807) % 2147483647
    r1 = x / 2147483647; x = (x * 16807) % 2147483647; r2 = x / 2147483647
    x = (x * 16807) % 2147483647; r3 = x / 2147483647
    printf "%d %d %.1f\n", 0.012 * 44100 + r1 * 0.030 * 44100, 900 + r2 * 5500, -r3 * 14 }')
  gen 16 "${F[@]}" -t f32 "$w/drop$v.f32" synth -n $((len + 2000))s whitenoise remix $((v + 1)) \
    vol 0.5 bandpass "$fc" 1.5q trim 2000s ${len}s fade l 40s ${len}s $((len - 40))s gain "$gain_db"
done
# The droplet track: exponential gaps (mean 30 ms) of silence between ticks, just over L+X long.
awk -v need=$((L + X)) 'BEGIN {
  x = 20240611; t = 0
  while (t < need) {
    x = (x * 16807) % 2147483647; u = (x + 1) / 2147483648
    gap = int(-log(u) * 0.030 * 44100) + 100
    x = (x * 16807) % 2147483647; v = x % 16
    print gap, v; t += gap + 500
  } }' >"$w/drops.txt"
while read -r gap v; do
  head -c $((gap * 4)) /dev/zero
  cat "$w/drop$v.f32"
done <"$w/drops.txt" >"$w/drops.f32"
sx -t f32 -r $RATE -c 1 "$w/drops.f32" "${F[@]}" "$w/rain.drops.wav" highpass 400 trim 0 $((L + X))s
for layer in hiss air rumble; do level "$w/rain.$layer.wav" "$w/rain.$layer.n.wav" -20; done
sx "$w/rain.drops.wav" "${F[@]}" "$w/rain.drops.n.wav" gain -n -6   # sparse: set by its peak
mix "$w/rain.raw.wav" -6 "$w/rain.hiss.n.wav" -16 "$w/rain.air.n.wav" -12 "$w/rain.rumble.n.wav" \
  -10 "$w/rain.drops.n.wav"
loopify "$w/rain.raw.wav" "$w/rain.loop.wav"
sx "$w/rain.loop.wav" "${F[@]}" "$w/rain.wav" synth sine amod "$(hz 16)" 80 0
master_noise "$w/rain.wav" heavy-rain-white-noise

# fan-white-noise-heater: brown-noise airflow + band-limited whoosh with a faint blade flutter
# (12 Hz) + a steady 110 Hz motor hum with two harmonics (whole cycles in LOOP).
noise "$w/fan.air.wav" brown 7 highpass 30 lowpass 2500
noise "$w/fan.whoosh.wav" pink 8 sinc 250-1600
noise "$w/fan.hiss.wav" white 9 sinc 1500-6000
for layer in air whoosh hiss; do
  level "$w/fan.$layer.wav" "$w/fan.$layer.n.wav" -20
  loopify "$w/fan.$layer.n.wav" "$w/fan.$layer.loop.wav"
done
sx "$w/fan.whoosh.loop.wav" "${F[@]}" "$w/fan.whoosh.mod.wav" synth sine amod 12 80 0
gen 3 "${F[@]}" "$w/fan.hum.raw.wav" synth -n ${L}s sine 110 sine 220 sine 330 remix 1v0.6,2v0.21,3v0.07
level "$w/fan.hum.raw.wav" "$w/fan.hum.wav" -20
mix "$w/fan.wav" -7 "$w/fan.air.loop.wav" -11 "$w/fan.whoosh.mod.wav" -22 "$w/fan.hiss.loop.wav" \
  -21 "$w/fan.hum.wav"
master_noise "$w/fan.wav" fan-white-noise-heater

# ocean-waves: a surf roar and a foam hiss, each swelling with slow waves (8 and 12 s, so the
# pattern repeats every 24 s, which divides LOOP), over a steady deep rumble.
noise "$w/sea.roar.wav" pink 10 highpass 40 lowpass 1200
noise "$w/sea.foam.wav" white 11 sinc 1500-8000
noise "$w/sea.deep.wav" brown 12 highpass 25 lowpass 300
for layer in roar foam deep; do
  level "$w/sea.$layer.wav" "$w/sea.$layer.n.wav" -20
  loopify "$w/sea.$layer.n.wav" "$w/sea.$layer.loop.wav"
done
sx "$w/sea.roar.loop.wav" "${F[@]}" "$w/sea.roar.a.wav" synth sine amod 0.125 15 0
sx "$w/sea.roar.a.wav" "${F[@]}" "$w/sea.roar.mod.wav" synth sine amod "$(hz 12)" 45 30
sx "$w/sea.foam.loop.wav" "${F[@]}" "$w/sea.foam.a.wav" synth sine amod 0.125 5 10
sx "$w/sea.foam.a.wav" "${F[@]}" "$w/sea.foam.mod.wav" synth sine amod "$(hz 12)" 40 40
mix "$w/sea.wav" -5 "$w/sea.roar.mod.wav" -12 "$w/sea.foam.mod.wav" -11 "$w/sea.deep.loop.wav"
master_noise "$w/sea.wav" ocean-waves

# ---------------------------------------------------------------------------------------------
# Alarm tones (mono, 4-10 s, each a whole number of repeats of a pattern)

# digital-alarm: four 80 ms beeps of a band-limited 2.8 kHz square (1st, 3rd, 5th harmonic),
# 60 ms apart, then a pause: 1 s pattern, 6 times.
gen 3 "${F[@]}" "$w/digital.wav" synth -n 0.08 sine 2800 sine 8400 sine 14000 \
  remix 1v0.6,2v0.2,3v0.12 fade h 0.003 0.08 0.003 pad 0 0.06 repeat 3 pad 0 0.44 repeat 5
master_alarm "$w/digital.wav" digital-alarm

# classic-alarm: a wind-up twin-bell clock. Two slightly detuned bells (three partials each),
# struck alternately by the hammer 9 times a second each (an exponential strike envelope, the
# second bell half a stroke later); 2.5 s of ringing that dies away, 0.5 s of silence; twice.
gen 3 "${F[@]}" "$w/bell1.wav" synth -n 2.5 sine 2200 sine 5120 sine 8390 remix 1v0.4,2v0.17,3v0.07 \
  synth exp amod 9 0 0 3 10
gen 3 "${F[@]}" "$w/bell2.wav" synth -n 2.5 sine 2290 sine 5300 sine 8660 remix 1v0.4,2v0.17,3v0.07 \
  synth exp amod 9 0 50 3 10
sx -m -v 1 "$w/bell1.wav" -v 0.9 "$w/bell2.wav" "${F[@]}" "$w/classic.wav" \
  fade h 0.002 2.5 0.35 pad 0 0.5 repeat 1
master_alarm "$w/classic.wav" classic-alarm

# beep-alarm: plain 1 kHz beeps, 250 ms on, 250 ms off, 10 times.
gen 2 "${F[@]}" "$w/beep.wav" synth -n 0.25 sine 1000 sine 2000 remix 1v0.8,2v0.1 \
  fade h 0.005 0.25 0.005 pad 0 0.25 repeat 9
master_alarm "$w/beep.wav" beep-alarm

# siren-alarm: a wail sweeping 600 -> 1400 Hz in 1.5 s and back, 3 times. Every sweep holds a
# whole number of cycles (average frequency x 1.5 s), so the joins (and the loop) fall at phase 0.
for dir in up down; do
  if [ $dir = up ]; then a=600 b=1400; else a=1400 b=600; fi
  gen 3 "${F[@]}" "$w/siren.$dir.wav" synth -n 1.5 sine $a:$b sine $((2 * a)):$((2 * b)) \
    sine $((3 * a)):$((3 * b)) remix 1v0.6,2v0.2,3v0.1
done
sx "$w/siren.up.wav" "$w/siren.down.wav" "${F[@]}" "$w/siren.wav" repeat 2
master_alarm "$w/siren.wav" siren-alarm

# buzzing-alarm: a 350 Hz square buzz (exactly 126 samples a period) with a 25 Hz rasp, in
# bursts: three 300 ms bursts 100 ms apart, a 300 ms pause: 1.5 s pattern, 4 times.
gen 1 "${F[@]}" "$w/buzz.wav" synth -n 0.3 square 350 vol 0.5 lowpass 7000 synth sine amod 25 60 0 \
  fade h 0.004 0.3 0.004 pad 0 0.1 repeat 2 pad 0 0.3 repeat 3
master_alarm "$w/buzz.wav" buzzing-alarm

# ---------------------------------------------------------------------------------------------
# Gong and timer tones (mono; the dry strikes come from scripts/make-gongs.py, whose comments give
# every partial's ratio, amplitude, split and decay time)

# dry ID: the strike as a float WAV at 44.1 kHz.
dry() {
  python3 scripts/make-gongs.py "$1" "$w/$1.f32"
  sx -t f32 -L -r $RATE -c 1 "$w/$1.f32" "${F[@]}" "$w/$1.dry.wav"
}
# A small, soft room: reverberance 30 %, HF damping 50 %, room scale 60 %, 8 ms pre-delay, wet -6 dB.
ROOM=(reverb 30 50 60 100 8 -6)

# singing-bowl: a 220 Hz bowl with partials at 2.72, 5.19, 8.33 and 12.05 times that, each a pair
# 0.55-3.4 Hz apart (the fundamental beats every 1.8 s), decaying with time constants of 5.2 s
# (the fundamental) down to 0.55 s; 28 s, the last 3 s faded (by then it is 55 dB down).
dry singing-bowl
sx "$w/singing-bowl.dry.wav" "${F[@]}" "$w/bowl.wav" "${ROOM[@]}" fade h 0 28 3
master_gong "$w/bowl.wav" singing-bowl

# soft-bell: a small 660 Hz bell (a rin) tapped gently: ratios 2.69, 5.08, 8.21, pairs 1.3-4.2 Hz
# apart, time constants 2.1 s down to 0.4 s; 11 s, the last 2 s faded.
dry soft-bell
sx "$w/soft-bell.dry.wav" "${F[@]}" "$w/bell.wav" "${ROOM[@]}" fade h 0 11 2
master_gong "$w/bell.wav" soft-bell

# timer-chime: G5 C6 E6 struck on a bar chime 0.18 s apart, a 3 s loop. The dry render is 6 s;
# after the room, everything past 3 s is added back onto the start, so the end of the loop flows
# into its start exactly as the ringing would go on.
dry timer-chime
sx "$w/timer-chime.dry.wav" "${F[@]}" "$w/chime.long.wav" "${ROOM[@]}"
sx "$w/chime.long.wav" "${F[@]}" "$w/chime.head.wav" trim 0 $((3 * RATE))s
sx "$w/chime.long.wav" "${F[@]}" "$w/chime.tail.wav" trim $((3 * RATE))s $((3 * RATE))s
sx -m -v 1 "$w/chime.head.wav" -v 1 "$w/chime.tail.wav" "${F[@]}" "$w/chime.wav"
master_gong "$w/chime.wav" timer-chime

# ---------------------------------------------------------------------------------------------
# Catalogs: id|name|category|description; the first entry of each is the default.

noise_catalog=(
  "heavy-rain-white-noise|Heavy rain|Starker Regen|rain|A steady downpour: dense rain hiss, droplet crackle and a low rumble.|Ein gleichmäßiger Wolkenbruch: dichtes Regenrauschen, prasselnde Tropfen und ein tiefes Grollen."
  "white-noise|White noise|Weißes Rauschen|noise|Flat, full-band hiss, like an untuned radio.|Flaches Rauschen über alle Frequenzen, wie ein nicht eingestelltes Radio."
  "pink-noise|Pink noise|Rosa Rauschen|noise|Softer, balanced noise with equal energy in every octave.|Weicheres, ausgewogenes Rauschen mit gleicher Energie in jeder Oktave."
  "brown-noise|Brown noise|Braunes Rauschen|noise|Deep, rumbling noise weighted to the low frequencies.|Tiefes, grollendes Rauschen mit Gewicht auf den tiefen Frequenzen."
  "fan-white-noise-heater|Fan heater|Heizlüfter|fan|A fan heater running: airflow, blade whoosh and a low motor hum.|Ein laufender Heizlüfter: Luftstrom, Rauschen der Flügel und ein tiefes Motorbrummen."
  "ocean-waves|Ocean waves|Meereswellen|nature|Slow waves rolling in over a deep surf roar.|Langsame Wellen, die über ein tiefes Brandungsrauschen heranrollen."
)
alarm_catalog=(
  "digital-alarm|Digital alarm|Digitalwecker|alarm|A classic digital clock: four quick beeps, then a pause.|Ein klassischer Digitalwecker: vier schnelle Pieptöne, dann eine Pause."
  "classic-alarm|Classic bell|Klassische Glocke|alarm|A wind-up twin-bell alarm clock ringing in bursts.|Ein mechanischer Wecker mit zwei Glocken, der in Stößen klingelt."
  "beep-alarm|Beeps|Pieptöne|alarm|Plain, steady beeps.|Schlichte, gleichmäßige Pieptöne."
  "siren-alarm|Siren|Sirene|alarm|A siren wailing up and down.|Eine auf- und abschwellende Sirene."
  "buzzing-alarm|Buzzer|Summer|alarm|A harsh buzzer in short bursts.|Ein harter Summer in kurzen Stößen."
)
gong_catalog=(
  "singing-bowl|Singing bowl|Klangschale|gong|A Tibetan singing bowl struck softly: a deep, slowly beating tone that rings for half a minute.|Eine sanft angeschlagene tibetische Klangschale: ein tiefer, langsam schwebender Ton, der eine halbe Minute nachklingt."
  "soft-bell|Soft bell|Sanfte Glocke|gong|A small bright bell tapped gently, fading in about ten seconds.|Eine kleine, helle Glocke, leicht angetippt, nach etwa zehn Sekunden verklungen."
  "timer-chime|Timer chime|Timer-Klang|timer|Three rising chime notes, repeated until the timer is dismissed.|Drei aufsteigende Klangtöne, wiederholt, bis der Timer ausgeschaltet wird."
)

json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }
# Each entry: id|English name|German name|category|English description|German description (SPEC §11).
write_catalog() {   # write_catalog FILE ENTRY...
  local file=$1; shift
  local first=1 id name name_de category description description_de
  {
    echo "["
    for entry in "$@"; do
      IFS='|' read -r id name name_de category description description_de <<<"$entry"
      [ $first = 1 ] || echo ","
      printf '  {"id": %s, "name": {"en": %s, "de": %s}, "file": %s, "category": %s, "description": {"en": %s, "de": %s}, "default": %s}' \
        "$(json_str "$id")" "$(json_str "$name")" "$(json_str "$name_de")" "$(json_str "$id.mp3")" "$(json_str "$category")" \
        "$(json_str "$description")" "$(json_str "$description_de")" "$([ $first = 1 ] && echo true || echo false)"
      first=0
    done
    printf '\n]\n'
  } >"$file"
}
write_catalog "$out/sounds.json" "${noise_catalog[@]}"
write_catalog "$out/alarm-sounds.json" "${alarm_catalog[@]}"
write_catalog "$out/gong-sounds.json" "${gong_catalog[@]}"

# ---------------------------------------------------------------------------------------------
# Checks: every catalog entry has its file and every file an entry; each file decodes (gapless)
# to exactly the samples it was made from, lasts 30-60 s (noise), 4-10 s (alarm) or 2-30 s (gong),
# is under 1 MB (gongs: 300 kB), is not silent and does not clip; at the loop point the jump from
# the last sample to the first is no bigger than an ordinary step inside the file, (noise) the
# level of the last and first 50 ms agree within 6 dB, and (gong) the last 50 ms are at least 30 dB
# under the first: a gong dies away, and the timer chime's loop ends in its quiet tail.

failed=0
fail() { echo "make-sounds: $*" >&2; failed=1; }
check() {   # check DIR ID KIND(noise|alarm|gong)
  local dir=$1 id=$2 kind=$3
  local mp3=$dir/$id.mp3 src=$work/$id.16.wav
  [ -f "$mp3" ] || { fail "$mp3 missing"; return; }
  local bytes want got secs
  bytes=$(wc -c <"$mp3")
  local max=$MAX_BYTES
  [ "$kind" = gong ] && max=$GONG_MAX_BYTES
  [ "$bytes" -lt "$max" ] || fail "$mp3 is $bytes bytes (limit $max)"
  lame --quiet --decode "$mp3" "$work/$id.dec.wav" 2>/dev/null
  want=$(soxi -s "$src"); got=$(soxi -s "$work/$id.dec.wav")
  [ "$want" = "$got" ] || fail "$mp3 decodes to $got samples, made from $want (gapless info lost?)"
  secs=$(awk -v n="$got" 'BEGIN { printf "%.3f", n / 44100 }')
  case $kind in noise) lo=30 hi=60 ;; alarm) lo=4 hi=10 ;; *) lo=2 hi=30 ;; esac
  awk -v s="$secs" -v lo=$lo -v hi=$hi 'BEGIN { exit !(s >= lo && s <= hi) }' \
    || fail "$mp3 lasts $secs s, not $lo-$hi s"
  local rms pk
  rms=$(stat_db "$work/$id.dec.wav" RMS); pk=$(stat_db "$work/$id.dec.wav" Pk)
  awk -v r="$rms" -v p="$pk" 'BEGIN { exit !(r > -40 && p < -0.5) }' \
    || fail "$mp3 level: RMS $rms dBFS, peak $pk dBFS (want RMS > -40, peak < -0.5)"
  local seam
  sox -V1 "$work/$id.dec.wav" -t f32 - | od -An -v -f -w4 >"$work/$id.txt"
  seam=$(awk -v w=2205 '
    { v = $1 + 0; if (NR == 1) first = v; else { d = v - prev; dd += d * d }
      if (NR <= w) h += v * v; ring[NR % w] = v; prev = v }
    END {
      n = NR; for (i in ring) t += ring[i] ^ 2
      h = 10 * log(h / w + 1e-12) / log(10); t = 10 * log(t / w + 1e-12) / log(10)
      j = first - prev; if (j < 0) j = -j
      printf "%.1f %.1f %.5f %.5f\n", h, t, j, sqrt(dd / (n - 1)) }' "$work/$id.txt")
  read -r head_db tail_db jump step <<<"$seam"
  awk -v j="$jump" -v s="$step" 'BEGIN { exit !(j <= 5 * s + 0.0005) }' \
    || fail "$mp3 loop point jumps by $jump (typical step $step)"
  if [ "$kind" = noise ]; then
    awk -v a="$head_db" -v b="$tail_db" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 6) }' \
      || fail "$mp3 loop point: first 50 ms at $head_db dB, last 50 ms at $tail_db dB"
  fi
  if [ "$kind" = gong ]; then
    awk -v a="$head_db" -v b="$tail_db" 'BEGIN { exit !(b <= a - 30) }' \
      || fail "$mp3 does not die away: first 50 ms at $head_db dB, last 50 ms at $tail_db dB"
  fi
  printf '%-40s %7.3f s %8d bytes  RMS %6s dBFS  peak %5s dBFS  seam: %s/%s dB, jump %s (step %s)\n' \
    "${mp3#"$out"/}" "$secs" "$bytes" "$rms" "$pk" "$head_db" "$tail_db" "$jump" "$step"
}

check_catalog() {   # check_catalog JSON DIR KIND ENTRY...
  local json=$1 dir=$2 kind=$3; shift 3
  local ids=() id rest f
  for entry in "$@"; do IFS='|' read -r id rest <<<"$entry"; ids+=("$id"); check "$dir" "$id" "$kind"; done
  for f in "$dir"/*.mp3; do
    id=$(basename "$f" .mp3)
    [[ " ${ids[*]} " == *" $id "* ]] || fail "$f is not in $json"
  done
  [ "$(grep -c '"default": true' "$json")" = 1 ] || fail "$json must have exactly one default"
}
check_catalog "$out/sounds.json" "$sounds_dir" noise "${noise_catalog[@]}"
check_catalog "$out/alarm-sounds.json" "$alarms_dir" alarm "${alarm_catalog[@]}"
check_catalog "$out/gong-sounds.json" "$gongs_dir" gong "${gong_catalog[@]}"
[ $failed = 0 ] || { echo "make-sounds: FAILED, Resources/ left as it was" >&2; exit 1; }

mkdir -p Resources/sounds Resources/alarm-sounds Resources/gongs
rm -f Resources/sounds/*.mp3 Resources/alarm-sounds/*.mp3 Resources/gongs/*.mp3
cp "$sounds_dir"/*.mp3 Resources/sounds/
cp "$alarms_dir"/*.mp3 Resources/alarm-sounds/
cp "$gongs_dir"/*.mp3 Resources/gongs/
cp "$out/sounds.json" "$out/alarm-sounds.json" "$out/gong-sounds.json" Resources/
echo "make-sounds: ${#noise_catalog[@]} sounds, ${#alarm_catalog[@]} alarm tones, ${#gong_catalog[@]} gongs, all checks passed"
