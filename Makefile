# pidspawn: pristine process creation with pidfd_open(PIDFD_EMPTY) and
# pidfd_config(). See README.md.
#
#   make run       build what is missing, boot the guest, run the demo
#   make check     host checks and suites, then all guest suites
#   make shell     an interactive guest shell
#   make bench     every spawn method side by side in one guest run, CSV and plots
#   make fuzz      the pidfd_config() fuzzer, on the debug kernel by default
#   make stress    stress-ng's posix_spawn stressors, glibc against the shim
#                  (debug kernel by default)
#   make soak      a million spawns, then leftover, fd and slab checks
#   make check KCONFIG=debug   the same on the KASAN/lockdep/kmemleak kernel
#   make check-config-off      the series built with its Kconfig options off
#   make check KSERIES=1       the core series alone (kernel-patches/1-core)
#   make kernel-tree / make kernel-patches   the kernel development loop

PIDSPAWN_CACHE ?= $(HOME)/.cache/pidspawn
KCONFIG ?= default
# KSERIES=N: apply the series in kernel-patches/ up to the Nth only (a
# kernel of its own); the default is all of them.
KSERIES ?=
export PIDSPAWN_CACHE KCONFIG KSERIES

BUILD := $(CURDIR)/build/$(KCONFIG)$(if $(KSERIES),-s$(KSERIES))
KBUILD := $(PIDSPAWN_CACHE)/kbuild/$(KCONFIG)$(if $(KSERIES),-s$(KSERIES))
KTREE := $(PIDSPAWN_CACHE)/linux
BZIMAGE := $(KBUILD)/arch/x86/boot/bzImage
# The debug kernel (KASAN, lockdep, kmemleak) is several times slower.
GUEST_TIMEOUT ?= $(if $(filter debug,$(KCONFIG)),10800,3600)
PIDSPAWN_TEST_TIMEOUT ?= $(if $(filter debug,$(KCONFIG)),3600,900)
export PIDSPAWN_TEST_TIMEOUT
GUEST_OPTS := --timeout $(GUEST_TIMEOUT) $(if $(KVM),--kvm)

.PHONY: all deps kernel image userspace run sandbox-demo sandbox-bench shell bench python-bench fuzz stress soak check check-debug \
	check-config-off kernel-tree kernel-patches series-check fresh-check clean

all: kernel image userspace

deps:
	@images/install-deps.sh

kernel: deps
	@kernel-patches/kernel.sh build

image: deps
	@images/build-image.sh >/dev/null

userspace: deps
	@$(MAKE) -s -C userspace

# $(call guest-job,NAME,COMMANDS,RUN-GUEST OPTIONS): stage the library and
# tests in $(BUILD)/NAME, run the commands there in the guest, show job.out.
define guest-job
	@rm -rf $(BUILD)/$(1) && mkdir -p $(BUILD)/$(1)
	@$(MAKE) -s -C userspace stage DEST=$(BUILD)/$(1)/userspace
	@printf '%s\n' 'uname -sr' 'cd userspace' $(2) > $(BUILD)/$(1)/job.sh
	@echo "$(1): booting the guest (TCG); serial log in $(BUILD)/$(1)/serial.log"
	@images/run-guest.sh --kernel $(BZIMAGE) --image $$(images/build-image.sh) \
		$(GUEST_OPTS) $(3) $(BUILD)/$(1); rc=$$?; cat $(BUILD)/$(1)/job.out; exit $$rc
endef

run: kernel image userspace
	$(call guest-job,run,'./demo/pidspawn-demo' './demo/pidspawn-sandbox-demo')

# The second half of make run alone: a tool in a sandbox set up by the builder.
sandbox-demo: kernel image userspace
	$(call guest-job,sandbox-demo,'./demo/pidspawn-sandbox-demo')

# BENCH_ARGS: -n spawns per method, -r repetitions, -s scenarios, -m
# methods, -c children (comma lists; see userspace/demo/pidspawn-bench.c).
# BENCH_LARGE_ARGS: a second run of it into the same CSV with other
# arguments, empty for none: in counted mode the other parents, with fewer
# spawns and without fork (a fork of 1 GiB costs 500 small spawns).
# MAKE_BENCH_ARGS: rules and rounds of GNU make -j2 (demo/make-bench.sh).
# CLIENT_BENCH_ARGS: children and rounds of ninja, fish and a Rust program
# (demo/client-bench.sh), empty to leave them out.
# AGENT_MIX_ARGS: calls a run and rounds of the agent-tool mix
# (demo/make-agent-mix.sh), empty to leave it out.
# PY_AGENT_MIX_ARGS: the same for the mix driven by asyncio through
# subprocess (stock, pidspawn's drop-in, with templates), empty to leave
# it out; PY_SPAWN_ARGS: calls and rounds of subprocess.run(["/bin/true"])
# from a small parent, one with 10k more fds and one with 1 GiB touched
# (python/bench/spawn_cost.py), empty to leave it out. make python-bench
# runs these two alone. A quick subset:
#   make bench BENCH_ARGS="-n 100 -s small" MAKE_BENCH_ARGS="60 1" \
#     CLIENT_BENCH_ARGS= AGENT_MIX_ARGS=
# BENCH_CLOCK=icount counts instead of timing: one vCPU, single-threaded
# TCG under -icount shift=0,sleep=off, so the guest's clock advances 1 ns a
# guest instruction and "ns" are instructions; steady to about 1% where
# TCG's wall clock drifts 10-30% (docs/measurements.md). BENCH_CLOCK=wall
# (the default) is multi-threaded TCG with 2 vCPUs, timed.
# The CSV goes to build/bench/$(BENCH_CLOCK)/results.csv with the plots
# beside it; the run before is kept as results.prev.csv and compared.
# The wall-clock defaults keep make bench well under 15 minutes (7 min 34 s
# measured on 2 cores, docs/measurements.md); counted mode takes about 27.
BENCH_CLOCK ?= wall
ifeq ($(BENCH_CLOCK),icount)
BENCH_ARGS ?= -n 1000 -r 2 -s small
BENCH_LARGE_ARGS ?= -n 200 -s 10-fds,8-actions,1g,100k-fds \
	-m vfork,posix_spawn-glibc,posix_spawn-lib,builder-path,builder-fd,template,template-nocache,floor,vfork-pidfd
BENCH_GUEST_OPTS := --icount --smp 1
MAKE_BENCH_ARGS ?= 300 2
CLIENT_BENCH_ARGS ?= 300 2
AGENT_MIX_ARGS ?= 160 2
PY_AGENT_MIX_ARGS ?= 160 2
PY_SPAWN_ARGS ?= -n 100 -r 2
else
BENCH_ARGS ?= -n 50
BENCH_LARGE_ARGS ?=
BENCH_GUEST_OPTS :=
MAKE_BENCH_ARGS ?= 150 2
CLIENT_BENCH_ARGS ?= 100 2
AGENT_MIX_ARGS ?= 80 2
PY_AGENT_MIX_ARGS ?= 80 2
PY_SPAWN_ARGS ?= -n 100 -r 3
endif
BENCH_OUT := build/bench/$(BENCH_CLOCK)

# The Python half of make bench, as guest-job commands (from the copy in
# the guest's tmpfs).
PY_BENCH_JOB := $(if $(PY_AGENT_MIX_ARGS),'./demo/make-agent-mix.sh $(PY_AGENT_MIX_ARGS) python') \
	$(if $(PY_SPAWN_ARGS),$(foreach p,--fds=0 --fds=10000 --mem=1024,\
		'PYTHONPATH=python python3 python/bench/spawn_cost.py $(PY_SPAWN_ARGS) $(p)'))

# The programs and libraries run from the guest's tmpfs, not the host's
# share: every read over 9p waits for QEMU, and under -icount a wait
# advances the clock to the next timer.
bench: kernel image userspace
	$(call guest-job,bench,'nproc' 'cp -a . /tmp/pidspawn && cd /tmp/pidspawn' \
		'./demo/pidspawn-bench -k $(BENCH_CLOCK) -o /mnt/host/results.csv $(BENCH_ARGS)' \
		$(if $(BENCH_LARGE_ARGS),'./demo/pidspawn-bench -k $(BENCH_CLOCK) -o /mnt/host/results.csv $(BENCH_LARGE_ARGS)') \
		'./demo/make-bench.sh $(MAKE_BENCH_ARGS)' \
		$(if $(CLIENT_BENCH_ARGS),'./demo/client-bench.sh $(CLIENT_BENCH_ARGS)') \
		$(if $(AGENT_MIX_ARGS),'./demo/make-agent-mix.sh $(AGENT_MIX_ARGS)') \
		$(PY_BENCH_JOB),$(BENCH_GUEST_OPTS))
	@mkdir -p $(BENCH_OUT)
	@[ ! -f $(BENCH_OUT)/results.csv ] || mv -f $(BENCH_OUT)/results.csv $(BENCH_OUT)/results.prev.csv
	@cp -f $(BUILD)/bench/results.csv $(BENCH_OUT)/
	@userspace/demo/bench-plot.sh $(BENCH_OUT)/results.csv $(BENCH_OUT)
	@echo "bench: the repetitions of this run:"; for c in vs_vfork trimmed_vs_vfork; do \
		userspace/demo/bench-compare.sh -c $$c $(BENCH_OUT)/results.csv | tail -1; done
	@[ ! -f $(BENCH_OUT)/results.prev.csv ] || { echo "bench: this run against the one before:"; \
		for c in vs_vfork trimmed_vs_vfork; do userspace/demo/bench-compare.sh -c $$c \
		$(BENCH_OUT)/results.prev.csv $(BENCH_OUT)/results.csv | tail -1; done; }

python-bench: kernel image userspace
	$(call guest-job,python-bench,'nproc' 'cp -a . /tmp/pidspawn && cd /tmp/pidspawn' \
		$(PY_BENCH_JOB),$(BENCH_GUEST_OPTS))

# make sandbox-bench: the same sandbox (write access beneath one directory,
# no network, no_new_privs, a seccomp deny-list, RLIMIT_NOFILE) by fork and
# system calls in the child, by bubblewrap, by the builder and by
# pidspawn_sandbox(), side by side in one guest run
# (userspace/demo/sandbox-bench.c), then the lines of caller code each
# needs. BENCH_CLOCK as for make bench; SANDBOX_BENCH_ARGS: -n spawns a
# round, -r rounds.
SANDBOX_BENCH_ARGS ?= -n 100 -r 7
sandbox-bench: kernel image userspace
	$(call guest-job,sandbox-bench,'cp -a . /tmp/pidspawn && cd /tmp/pidspawn' \
		'cp demo/exit0 /var/tmp/ && mkdir -p /tmp/sandbox-work' \
		'./demo/sandbox-bench -k $(BENCH_CLOCK) $(SANDBOX_BENCH_ARGS) /var/tmp/exit0 /tmp/sandbox-work',$(BENCH_GUEST_OPTS))
	@echo "sandbox-bench: lines of caller code (not blank, not comment) in userspace/demo/sandbox-bench.c:"
	@awk '/caller code: /{ w = $$4; n = 0; next } /end of caller code/{ print "  " w, n; w = ""; next } \
		w != "" && !/^[[:space:]]*$$/ && !/^[[:space:]]*(\/\*|\*)/ { n++ }' userspace/demo/sandbox-bench.c

# The fuzzer for FUZZ_SECONDS (FUZZ_SEED reruns a seed it printed), on the
# debug kernel unless KCONFIG is given: its KASAN, lockdep and kmemleak
# reports are what a fuzz run is for, and fail the run.
FUZZ_SECONDS ?= 600
FUZZ_THREADS ?= 4
FUZZ_SEED ?=

# make soak: SOAK_SPAWNS spawns one after another (pidfd-fuzz --soak), then
# the fuzzer's leftover, fd and slab checks.
SOAK_SPAWNS ?= 1000000
# make stress: stress-ng's posix_spawn stressors on glibc and through the
# shim, STRESS_SECONDS a run, at each of STRESS_WORKERS.
STRESS_SECONDS ?= 20
STRESS_WORKERS ?= 1 2 4

ifeq ($(origin KCONFIG),file)
fuzz stress:
	@$(MAKE) $@ KCONFIG=debug
else
fuzz: kernel image userspace
	$(call guest-job,fuzz,'./tests/pidfd-fuzz --seconds $(FUZZ_SECONDS) --threads $(FUZZ_THREADS) $(if $(FUZZ_SEED),--seed $(FUZZ_SEED))',--timeout $$(($(GUEST_TIMEOUT) + $(FUZZ_SECONDS))))

stress: kernel image userspace
	$(call guest-job,stress,'./demo/stress.sh $(STRESS_SECONDS) $(STRESS_WORKERS)')
endif

# The child runs from the root filesystem, not the host's share (9p).
soak: kernel image userspace
	$(call guest-job,soak,'cp demo/exit0 /var/tmp/' \
		'./tests/pidfd-fuzz --soak $(SOAK_SPAWNS) --soak-child /var/tmp/exit0',--timeout 14400)

shell: kernel image userspace
	@rm -rf $(BUILD)/shell && mkdir -p $(BUILD)/shell
	@$(MAKE) -s -C userspace stage DEST=$(BUILD)/shell/userspace
	@cp -a $(KBUILD)/kselftest_install $(BUILD)/shell/kselftest
	@images/run-guest.sh --interactive --kernel $(BZIMAGE) \
		--image $$(images/build-image.sh) $(GUEST_OPTS) $(BUILD)/shell

check: kernel image userspace
	@selftests/check.sh $(CURDIR) $(KBUILD) $(KTREE) $$(images/build-image.sh) \
		$(BUILD) $(GUEST_OPTS)

check-debug:
	@$(MAKE) check KCONFIG=debug

# The series applied with CONFIG_PIDFD_CONFIG (and templates) off: another
# kernel build; the stock kselftests and the suites marked "off" in
# userspace/tests.list (the library falls back).
check-config-off:
	@$(MAKE) check KCONFIG=off

# The kernel development loop: a git tree with the series as commits.
kernel-tree: deps
	@kernel-patches/kernel.sh dev-tree

kernel-patches:
	@kernel-patches/kernel.sh export-series

# Every patch of the series builds on its own (slow: one build a patch).
# SERIES_FROM=N starts at patch N.
series-check: deps
	@kernel-patches/kernel.sh each-patch

# The README's two commands on a brand-new Debian 12 root (debootstrap,
# chroot, a clone of HEAD, empty caches): slow (~25+ min), not part of CI.
fresh-check:
	@images/fresh-check.sh

clean:
	rm -rf build
	@$(MAKE) -s -C userspace clean
