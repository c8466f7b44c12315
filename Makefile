# NoiseClock. `make run` and `make test` install the Debian packages they need when missing.
SWIFT ?= swift

.PHONY: all deps build run test unit integration e2e-ha e2e-face bench release sounds clean deb deb-test

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

run: build
	bash scripts/run-local.sh

# Unit and integration tests (the integration tests start their own Mosquitto on loopback ports;
# the references of the holiday rules, PyPI holidays, and of the calendar helper, PyPI icalendar and
# recurring-ical-events, are installed once into cached venvs first).
# (The Home Assistant end-to-end test needs a Home Assistant venv: `make e2e-ha`.)
test: deps
	$(SWIFT) build --build-tests
	@bash scripts/holidays-reference.sh --install
	@bash scripts/calendar-reference.sh --install
	$(SWIFT) test --skip-build --skip NoiseClockHomeAssistantTests

unit: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'NoiseClockSystemTests|NoiseClockCoreTests|NoiseClockHubTests|NoiseClockNodeTests|NoiseClockPowerTests|NoiseClockAudioTests|NoiseClockDisplayTests|NoiseClockFaceTests'

integration: deps
	$(SWIFT) build --build-tests
	@bash scripts/holidays-reference.sh --install
	@bash scripts/calendar-reference.sh --install
	$(SWIFT) test --skip-build --filter NoiseClockIntegrationTests --skip NoiseClockHomeAssistantTests

# The clock face in headless Chromium against a real node (also part of `make test`); screenshots
# of each size land in the temporary folder the test prints on failure, or in NOISECLOCK_SCREENSHOTS
# (e.g. NOISECLOCK_SCREENSHOTS=$PWD/docs/screenshots) to be kept.
e2e-face: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter FaceBrowserTests

# The node against a real Home Assistant Core 2025.4.4, installed once into a cached venv by
# scripts/ha-core.sh (needs Python 3.13; ~3 min and 800 MB the first time).
e2e-ha: deps
	@venv=$$(bash scripts/ha-core.sh) && \
	$(SWIFT) build --build-tests && \
	NOISECLOCK_HA_VENV="$$venv" $(SWIFT) test --skip-build --filter NoiseClockHomeAssistantTests

release: deps
	$(SWIFT) build -c release

bench: release
	bash bench/run.sh

# Regenerates Resources/sounds, Resources/alarm-sounds and Resources/gongs (sox, lame, python3) and their catalogs.
sounds: deps
	bash scripts/make-sounds.sh

# The Debian package, noiseclock_<VERSION>_<arch>.deb in the checkout (docs/packaging.md): a
# release build with the Swift runtime linked in (.build-deb/), through debhelper.
# ARCH=arm64: the Raspberry Pi package, cross-built from amd64 with Debian's own Swift (needs root;
# the first build makes and caches the toolchain under .build-deb/arm64/, docs/packaging.md).
ARCH ?=

deb: deps
	ARCH=$(ARCH) bash scripts/make-deb.sh

# The package in a clean Debian 12 booted with systemd-nspawn: install, ping, sounds, an alarm
# across a restart, the face, an upgrade that keeps the alarm and an edited conffile, a purge that
# leaves no file behind (scripts/deb-test.sh; needs root). ARCH=arm64: the same checks on the Pi
# package in a clean Debian 13 arm64 machine booted whole by qemu-system-aarch64 (TCG, its own
# kernel; scripts/arm64-vm.sh caches it under .build-deb/arm64/vm/), driven over ssh.
deb-test: deps
	ARCH=$(ARCH) bash scripts/deb-test.sh

clean:
	rm -rf .build .build-fuzz .build-deb run

# libFuzzer target for the command decoder (fuzz/, SPEC §8): `make fuzz` fuzzes for FUZZ_SECONDS
# (10 minutes by default), keeping its corpus in .build-fuzz/corpus between runs; `make fuzz-ci`
# fuzzes for 60 s from the seeds alone. Both build with swiftc into .build-fuzz/ and fail on a
# crash, a hang or a broken invariant, leaving the input in .build-fuzz/artifacts/.
FUZZ_SECONDS ?= 600

.PHONY: fuzz fuzz-ci

fuzz:
	bash fuzz/fuzz.sh run $(FUZZ_SECONDS)

fuzz-ci:
	bash fuzz/fuzz.sh ci 60
