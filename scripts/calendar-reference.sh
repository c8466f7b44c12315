#!/usr/bin/env bash
# The reference for the calendar helper (SPEC §17): the Python `icalendar` and
# `recurring_ical_events` packages from PyPI, installed once into a cached venv, expanding a feed
# with the same arguments and printing the same lines as `noiseclock-calendar`:
#
#   bash scripts/calendar-reference.sh --from 2026-12-06 --days 8 --zone Europe/Berlin feed.ics
#   bash scripts/calendar-reference.sh --install   # only makes the venv (make test does, before the tests)
#
# one JSON object a line, sorted by start (timed) or date (all-day):
#   {"uid":"a@x","summary":"Dentist","start":1796884200,"end":1796886000,"all_day":false}
#   {"uid":"b@x","summary":"Urlaub","date":"2026-12-08","end_date":"2026-12-10","all_day":true}
# Timed occurrences starting in [from 00:00, from+days 00:00) of --zone, all-day ones overlapping
# [from, from+days); floating times read in --zone; STATUS:CANCELLED events and instances left out.
# The venv lives under ${NOISECLOCK_CALENDAR_REFERENCE_DIR:-$HOME/.cache/noiseclock/calendar-<versions>}.
set -euo pipefail

ICALENDAR=7.3.0
RECURRING=3.8.2
# Their dependencies, pinned too, so that every machine expands with the same code.
PINS="icalendar==${ICALENDAR} recurring-ical-events==${RECURRING} x-wr-timezone==2.0.1 python-dateutil==2.9.0.post0
tzdata==2026.6 six==1.17.0 click==8.5.1 typing_extensions==4.16.0"
VERSION="${ICALENDAR}-${RECURRING}"
home=${HOME:-$(cd ~ && pwd)}
dir=${NOISECLOCK_CALENDAR_REFERENCE_DIR:-$home/.cache/noiseclock/calendar-${VERSION}}
venv="$dir/venv"
stamp="$dir/installed"

if ! [ -f "$stamp" ] || [ "$(cat "$stamp")" != "$VERSION" ] || ! [ -x "$venv/bin/python" ]; then
  echo "calendar-reference.sh: installing icalendar ${ICALENDAR} and recurring-ical-events ${RECURRING} into $venv" >&2
  rm -rf "$venv" "$stamp"
  mkdir -p "$dir"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip install -q --disable-pip-version-check $PINS >&2
  echo "$VERSION" > "$stamp"
fi
[ "${1:-}" = "--install" ] && exit 0

"$venv/bin/python" - "$@" <<'PY'
import datetime as dt
import json
import sys
import zoneinfo

import icalendar
import recurring_ical_events


def fail(why, code):
    print(f"calendar-reference.sh: {why}", file=sys.stderr)
    sys.exit(code)


args, path = {}, None
argv = sys.argv[1:]
while argv:
    name = argv.pop(0)
    if name in ("--from", "--days", "--zone"):
        if not argv:
            fail(f"{name} needs a value", 2)
        args[name] = argv.pop(0)
    elif name.startswith("-") and name != "-":
        fail(f"unknown argument {name}", 2)
    else:
        path = None if name == "-" else name
for name in ("--from", "--days", "--zone"):
    if name not in args:
        fail(f"{name} is missing", 2)
first = dt.date.fromisoformat(args["--from"])
days = int(args["--days"])
zone = zoneinfo.ZoneInfo(args["--zone"])
last = first + dt.timedelta(days=days)
start = int(dt.datetime.combine(first, dt.time(), zone).timestamp())
end = int(dt.datetime.combine(last, dt.time(), zone).timestamp())

data = open(path, "rb").read() if path else sys.stdin.buffer.read()
if len(data) > 20 * 1024 * 1024:
    fail("the feed is larger than 20 MB", 1)
if not data.lstrip(b"\xef\xbb\xbf \t\r\n").upper().startswith(b"BEGIN:VCALENDAR"):
    fail("not an iCalendar feed (no BEGIN:VCALENDAR)", 1)
calendar = icalendar.Calendar.from_ical(data)


def instant(value):
    """Unix seconds of a datetime; a floating one is read in --zone (fold 0: the first of two)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)
    return int(value.timestamp())


def text(event, name):
    value = event.get(name)
    return "" if value is None else str(value)


lines = []
# Two days wider than the window (any zone's offset), then the window exactly, as the helper has it.
for event in recurring_ical_events.of(calendar, components=["VEVENT"]).between(first - dt.timedelta(days=2), last + dt.timedelta(days=2)):
    if str(event.get("STATUS", "")).upper() == "CANCELLED":
        continue
    begin = event["DTSTART"].dt
    finish = event["DTEND"].dt if "DTEND" in event else None
    uid, summary = text(event, "UID"), text(event, "SUMMARY")
    if isinstance(begin, dt.datetime):
        first_second = instant(begin)
        last_second = instant(finish) if isinstance(finish, dt.datetime) else first_second
        if start <= first_second < end:
            line = {"uid": uid, "summary": summary, "start": first_second, "end": last_second, "all_day": False}
            lines.append((first_second, uid, summary, json.dumps(line, ensure_ascii=False, separators=(",", ":"))))
    else:
        finish = finish if isinstance(finish, dt.date) and finish > begin else begin + dt.timedelta(days=1)
        if begin < last and finish > first:
            line = {"uid": uid, "summary": summary, "date": begin.isoformat(), "end_date": finish.isoformat(), "all_day": True}
            key = int(dt.datetime.combine(begin, dt.time(), zone).timestamp())
            lines.append((key, uid, summary, json.dumps(line, ensure_ascii=False, separators=(",", ":"))))
for _, _, _, line in sorted(lines):
    print(line)
PY
