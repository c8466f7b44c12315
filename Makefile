# NoiseClock. `make run` and `make test` install the Debian packages they need when missing.
SWIFT ?= swift

.PHONY: all deps build run test unit integration bench release sounds clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

run: build
	bash scripts/run-local.sh

# Unit and integration tests (the integration tests start their own Mosquitto on loopback ports).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

unit: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'NoiseClockCoreTests|NoiseClockNodeTests|NoiseClockPowerTests|NoiseClockAudioTests'

integration: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter NoiseClockIntegrationTests

release: deps
	$(SWIFT) build -c release

bench: release
	bash bench/run.sh

# Regenerates Resources/sounds and Resources/alarm-sounds (sox + lame) and their catalogs.
sounds: deps
	bash scripts/make-sounds.sh

clean:
	rm -rf .build run
