#!/usr/bin/env bash
# Builds the libFuzzer target for the command decoder and runs it.
#
#   bash fuzz/fuzz.sh build            build only (.build-fuzz/command-decoder-fuzz)
#   bash fuzz/fuzz.sh run SECONDS      build if needed, then fuzz for SECONDS
#   bash fuzz/fuzz.sh ci SECONDS       the same from an empty scratch corpus (make fuzz-ci)
#   bash fuzz/fuzz.sh repro FILE...    run the target once on each FILE (a crash to look at)
#   bash fuzz/fuzz.sh coverage         line coverage of the decoder's files by the corpus so far
#
# The target is compiled with swiftc, not SwiftPM: every Swift file under Sources/NoiseClockCore
# (pure Swift and FoundationEssentials, no dependency) and fuzz/CommandDecoderFuzz.swift become one module, instrumented with
# -sanitize=fuzzer,address. Everything it writes goes under .build-fuzz/ (git-ignored): fuzz/corpus
# is passed as a second, read-only corpus directory, so new inputs land in .build-fuzz/corpus.
# A crash or broken invariant stops the run with a non-zero status and leaves the input in
# .build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
# The Swift toolchain lives in /opt/swift on these machines; a non-login shell may not have it on PATH.
command -v swiftc >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"
# libFuzzer reports crashes itself; Swift's own backtracer would attach to the dying process and
# can outlive it holding stdout open (and trips ASan when it reads the stack).
export SWIFT_BACKTRACE=enable=no

out=.build-fuzz
bin=$out/command-decoder-fuzz
mapfile -t core < <(find Sources/NoiseClockCore -name '*.swift' | sort)
sources=("${core[@]}" fuzz/CommandDecoderFuzz.swift)

build() {
    mkdir -p "$out"
    # Rebuild only when a source (or this script) is newer than the binary.
    if [ -x "$bin" ] && [ -z "$(find "${sources[@]}" fuzz/fuzz.sh -newer "$bin" 2>/dev/null)" ]; then
        return
    fi
    echo "fuzz: building $bin"
    # -O keeps Swift's overflow and bounds checks (only -Ounchecked drops them); -g for stack traces.
    # One job: the machines are small and shared.
    swiftc -parse-as-library -swift-version 6 -module-name NoiseClockFuzz \
        -sanitize=fuzzer,address -O -g -j 1 -num-threads 1 -use-ld=lld \
        "${sources[@]}" -o "$bin.tmp"
    mv "$bin.tmp" "$bin"
}

run() {
    local seconds=$1 corpus=$2
    mkdir -p "$corpus" "$out/artifacts"
    echo "fuzz: $bin for ${seconds}s (corpus $corpus, seeds fuzz/corpus)"
    # -timeout: an input that takes more than 20 s counts as a hang (a crash for libFuzzer).
    # -max_len 4096: commands are small; the 64 KiB limit itself is checked once at start.
    # malloc_context_size=0: no allocation stacks in ASan reports (a third faster); repro has them.
    # The whole log goes to $log; the terminal gets it without libFuzzer's NEW/REDUCE line per input.
    local status log="$corpus.log"
    set +e
    ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=0}" \
        "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=4096 \
        -dict=fuzz/command.dict -artifact_prefix="$out/artifacts/" -print_final_stats=1 \
        "$corpus" fuzz/corpus 2>&1 | tee "$log" | grep --line-buffered -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE) '
    status=${PIPESTATUS[0]}
    set -e
    if [ "$status" -ne 0 ]; then
        echo "fuzz: FAILED (status $status); the input is in $out/artifacts/ (newest:" \
            "$(ls -t "$out/artifacts" | head -1)). Reproduce: bash fuzz/fuzz.sh repro FILE" >&2
        return "$status"
    fi
    echo "fuzz: no crash, hang or broken invariant in ${seconds}s (full log: $log)"
}

case "${1:-}" in
build)
    build
    ;;
run)
    build
    run "${2:-600}" "$out/corpus"
    ;;
ci)
    build
    rm -rf "$out/corpus-ci"
    run "${2:-60}" "$out/corpus-ci"
    ;;
repro)
    shift
    build
    "$bin" -runs=1 "$@"
    ;;
coverage)
    # A second build with Swift's source coverage instead of ASan; it replays the corpora once.
    mkdir -p "$out/coverage" "$out/corpus"
    swiftc -parse-as-library -swift-version 6 -module-name NoiseClockFuzz -sanitize=fuzzer \
        -profile-generate -profile-coverage-mapping -Onone -j 1 -num-threads 1 -use-ld=lld \
        "${sources[@]}" -o "$out/coverage/replay"
    rm -f "$out/coverage/replay.profraw"
    LLVM_PROFILE_FILE="$out/coverage/replay.profraw" "$out/coverage/replay" -runs=0 \
        "$out/corpus" fuzz/corpus 2>&1 | grep -E 'INITED|DONE' || true
    tools=$(dirname "$(command -v swiftc)")
    "$tools/llvm-profdata" merge -sparse "$out/coverage/replay.profraw" -o "$out/coverage/replay.profdata"
    "$tools/llvm-cov" report "$out/coverage/replay" -instr-profile="$out/coverage/replay.profdata" \
        Sources/NoiseClockCore/Commands/{Command,CommandRouter,CommandError,JSONValue}.swift \
        Sources/NoiseClockCore/Alarms/{Alarm,AlarmBook}.swift Sources/NoiseClockCore/Settings/ClockSettings.swift
    echo "fuzz: line by line: $tools/llvm-cov show $out/coverage/replay -instr-profile=$out/coverage/replay.profdata Sources/NoiseClockCore/Commands/Command.swift"
    ;;
*)
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
