# shardsh: build, test and install. Flags come from pkg-config; `make deps` installs what is missing.
PKGS      := libmongoc-1.0 libbson-1.0 ncursesw libedit libcrypto libmicrohttpd
SIM_PKGS  := libbson-1.0 libssl libcrypto
CC        ?= cc
CXX       ?= c++
BUILD     ?= build
SAN       ?=
PREFIX    ?= /usr/local

WARN      := -Wall -Wextra -Werror -Wno-missing-field-initializers
# -O2 as mongo-c-driver's own release builds; the sanitizer builds stay at -O1 (their reports read better)
OPT       := $(if $(SAN),-O1,-O2)
BASEFLAGS := -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -g $(OPT) $(WARN) -I.
ifneq ($(SAN),)
# gcc's -fsanitize=undefined leaves out float-cast-overflow (a double cast to an integer it cannot hold): named here
BASEFLAGS += -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined,float-cast-overflow
SANLD     := -fsanitize=address,undefined,float-cast-overflow
JS_SAN    := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined,float-cast-overflow
endif

# The JavaScript engine plugin (shell/js/js_engine.cpp, the only C++): SpiderMonkey 102 and libbson, loaded with dlopen.
JS_PKGS    := mozjs-102 libbson-1.0
JS_CXXFLAGS = -std=c++17 -fPIC -g -O1 $(WARN) -I. $(shell pkg-config --cflags $(JS_PKGS) 2>/dev/null) $(JS_SAN)
JS_LIBS     = $(shell pkg-config --libs $(JS_PKGS) 2>/dev/null) -pthread

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
SIM_CFLAGS = $(shell pkg-config --cflags $(SIM_PKGS) 2>/dev/null)
SIM_LIBS   = $(shell pkg-config --libs $(SIM_PKGS) 2>/dev/null) -lpthread -lm

CFLAGS_ALL  = $(BASEFLAGS) $(PKG_CFLAGS) $(CFLAGS)
LDLIBS_ALL  = $(SANLD) $(PKG_LIBS) -lm $(LDFLAGS)

# The shell: everything under shell/, commands/ and views/ goes into one archive that main and the unit tests link.
# (the JavaScript prelude, shell/js/prelude/*.js, and the bridge's plain-C parts, js_bson.c, js_util.c and js_sys.c,
# go into the engine plugin only)
JS_PLUGIN_CSRCS := shell/js/js_bson.c shell/js/js_util.c shell/js/js_sys.c
CORE_SRCS := $(filter-out shell/main.c $(JS_PLUGIN_CSRCS),$(wildcard shell/*.c shell/*/*.c commands/*.c views/*.c views/*/*.c))
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/%.o)
MAIN_OBJ  := $(BUILD)/shell/main.o
CORE_LIB  := $(BUILD)/libshardsh.a

# The simulated cluster (tests/shardsim/, its query engine in tests/shardsim/query/) links only libbson, OpenSSL
# and pthreads. shell/lib/ (libbson only) is linked by both programs: the simulator places hashed keys with hashkey.c.
SIM_SRCS  := $(wildcard tests/shardsim/*.c tests/shardsim/query/*.c) $(wildcard shell/lib/*.c)
SIM_OBJS  := $(SIM_SRCS:%.c=$(BUILD)/%.o)
SIM_LIBOBJS := $(filter-out $(BUILD)/tests/shardsim/sim_main.o,$(SIM_OBJS))

# Unit tests: tests/unit/test_*.c link the shell archive; tests/unit/simtest_*.c link the simulator objects.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
SIMU_SRCS := $(wildcard tests/unit/simtest_*.c)
SIMU_BINS := $(SIMU_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

BINDIR ?= $(if $(SAN),$(BUILD)/bin,bin)
JS_PLUGIN = $(BINDIR)/shardsh-js.so

.PHONY: all binaries deps test check units asan clean install demo format format-check layers-check docs fuzz bench valgrind

# Every entry point (`make`, `make demo`, `make check`, `make test`) first runs the dependency step, which installs
# Debian's packages only when one is missing; the build itself runs in a sub-make so pkg-config sees them.
all: deps
	@$(MAKE) --no-print-directory binaries

binaries: $(BINDIR)/shardsh $(BINDIR)/shardsim $(JS_PLUGIN)

deps:
	sh tests/deps.sh

# The flags the objects of $(BUILD) were compiled with, rewritten only when they change: every object depends on it,
# so a change of OPT, SAN or CFLAGS rebuilds them instead of linking stale ones.
FLAGS_FILE := $(BUILD)/.flags
FLAGS_NOW  := $(BASEFLAGS) $(CFLAGS)
ifneq ($(MAKECMDGOALS),clean)
$(shell mkdir -p $(BUILD) && { [ -f $(FLAGS_FILE) ] && [ "$$(cat $(FLAGS_FILE))" = '$(FLAGS_NOW)' ] || echo '$(FLAGS_NOW)' > $(FLAGS_FILE); })
endif

$(BUILD)/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/tests/shardsim/%.o: tests/shardsim/%.c $(FLAGS_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(SIM_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(CORE_LIB): $(CORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BINDIR)/shardsh: $(MAIN_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_ALL)

# The prelude is JavaScript embedded at build time: its parts (shell/js/prelude/*.js, concatenated in name order into
# one function) are checked with node --check (Node.js comes with npm, which tests/deps.sh installs; without it the
# engine's own compile at start is the check), then written out as a C array.
PRELUDE_JS := $(sort $(wildcard shell/js/prelude/*.js))
%/gen/js_prelude.c: $(PRELUDE_JS)
	@mkdir -p $(dir $@)
	@cat $(PRELUDE_JS) > $(@:.c=.js)
	@if command -v node >/dev/null 2>&1; then node --check $(@:.c=.js); \
	 else echo "$(@:.c=.js): node not found: its syntax is checked when the engine starts" >&2; fi
	@{ echo '/* Generated by the Makefile from the parts in shell/js/prelude/: do not edit. */'; \
	   echo '#include "shell/js/js_prelude.h"'; \
	   echo 'const char js_prelude_source[] = {'; od -An -v -tx1 $(@:.c=.js) | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	   echo '0x00 };'; echo 'const size_t js_prelude_source_len = sizeof js_prelude_source - 1;'; } > $@.tmp && mv $@.tmp $@

$(JS_PLUGIN): shell/js/js_engine.cpp $(BUILD)/gen/js_prelude.c $(JS_PLUGIN_CSRCS) shell/js/js_engine.h \
              shell/js/js_prelude.h shell/js/js_bson.h shell/js/js_util.h shell/js/js_sys.h shell/core/errors.h
	@mkdir -p $(dir $@) $(BUILD)/plugin
	$(CC) $(BASEFLAGS) -fPIC -c $(BUILD)/gen/js_prelude.c -o $(BUILD)/plugin/js_prelude.o
	$(CC) $(BASEFLAGS) $(shell pkg-config --cflags libbson-1.0) -fPIC -c shell/js/js_bson.c -o $(BUILD)/plugin/js_bson.o
	$(CC) $(BASEFLAGS) -fPIC -c shell/js/js_util.c -o $(BUILD)/plugin/js_util.o
	$(CC) $(BASEFLAGS) $(shell pkg-config --cflags libbson-1.0) -fPIC -c shell/js/js_sys.c -o $(BUILD)/plugin/js_sys.o
	$(CXX) $(JS_CXXFLAGS) -shared -o $@ $< $(BUILD)/plugin/js_prelude.o $(BUILD)/plugin/js_bson.o \
	   $(BUILD)/plugin/js_util.o $(BUILD)/plugin/js_sys.o $(SANLD) $(JS_LIBS)

$(BINDIR)/shardsim: $(SIM_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(SANLD) $(SIM_LIBS)

$(BUILD)/tests/test_%: tests/unit/test_%.c $(CORE_LIB) tests/unit/unit.h tests/unit/simproc.h tests/unit/fidelity.h tests/unit/fidelity_rows.h tests/unit/simctx.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(CORE_LIB) $(LDLIBS_ALL)

$(BUILD)/tests/simtest_%: tests/unit/simtest_%.c $(SIM_LIBOBJS) tests/unit/unit.h tests/unit/simq_cases.h
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) $(SIM_CFLAGS) $(CFLAGS) -o $@ $< $(SIM_LIBOBJS) $(SANLD) $(SIM_LIBS)

units: binaries $(UNIT_BINS) $(SIMU_BINS)

# docs/commands.md and the COMMANDS section of docs/shardsh.1, regenerated from the command table
# (commands/table.def and the entries it lists); the unit test test_commands_doc fails while either is stale.
# docs/traps.md's table likewise from commands/traps.def (test_traps).
docs: deps
	@$(MAKE) --no-print-directory $(BUILD)/tests/test_commands_doc
	$(BUILD)/tests/test_commands_doc --write
	@$(MAKE) --no-print-directory $(BUILD)/tests/test_traps
	$(BUILD)/tests/test_traps --write

# The README's test command and CI's: checks the formatting, builds everything, then runs the suite, the tests that
# sanitizers can find something in under ASan+UBSan (each test's "passes:" line), and the libFuzzer targets over
# their saved corpus and regressions (a replay: CI gives the same answer for the same code; the random campaign is
# `make fuzz`), ending with one tally line and the ten slowest tests. The sanitizer and fuzz builds run in the
# background (niced) during the plain pass, which mostly waits on servers and terminals. Installs missing packages
# first, so a fresh machine needs nothing by hand. `make check` is the plain suite alone.
BG_BUILD = nice -n 10 $(MAKE) --no-print-directory -j2 BUILD=build/asan BINDIR=build/asan/bin SAN=1 units && \
           if command -v $(FUZZ_CC) >/dev/null 2>&1; then nice -n 10 $(MAKE) --no-print-directory -j2 $(FUZZ_BINS); fi
test: deps
	@$(MAKE) --no-print-directory format-check
	@$(MAKE) --no-print-directory layers-check
	@$(MAKE) --no-print-directory -j2 units
	@BUILD=$(BUILD) BINDIR=$(BINDIR) SHARDSH_PASSES="plain asan fuzz" SHARDSH_BG_BUILD='$(BG_BUILD)' sh tests/run.sh

check: deps
	@$(MAKE) --no-print-directory -j2 units
	@BUILD=$(BUILD) BINDIR=$(BINDIR) sh tests/run.sh

asan: deps
	@$(MAKE) --no-print-directory -j2 BUILD=build/asan SAN=1 units
	@BUILD=build/asan BINDIR=build/asan/bin SHARDSH_PASSES=asan sh tests/run.sh

# Fuzzing (tests/fuzz/): libFuzzer targets built with clang, ASan and UBSan over the shell's own sources in
# build/fuzz. `make fuzz FUZZ_SECONDS=N` runs each target for N seconds and fails on a crash, a leak or a hang.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_BUILD   := build/fuzz
FUZZ_CFLAGS   = -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -g -O1 $(WARN) -I. \
                $(PKG_CFLAGS) -fsanitize=address,undefined,float-cast-overflow \
                -fno-sanitize-recover=undefined,float-cast-overflow -fno-omit-frame-pointer
FUZZ_OBJS    := $(CORE_SRCS:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_BINS    := $(FUZZ_BUILD)/fuzz_parser $(FUZZ_BUILD)/fuzz_render $(FUZZ_BUILD)/fuzz_js_bridge $(FUZZ_BUILD)/fuzz_reply \
                $(FUZZ_BUILD)/fuzz_numbers

.SECONDARY: $(FUZZ_OBJS)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(PKG_LIBS) -lm

# the bridge's target loads its own build of the engine plugin, instrumented so coverage guides the fuzzer through it
# (ASan only: the C fuzzer links no C++ UBSan runtime; the ASan suite runs the plugin under UBSan)
$(FUZZ_BUILD)/shardsh-js.so: shell/js/js_engine.cpp $(FUZZ_BUILD)/gen/js_prelude.c $(JS_PLUGIN_CSRCS) \
                             shell/js/js_engine.h shell/js/js_prelude.h shell/js/js_bson.h shell/js/js_util.h \
                             shell/js/js_sys.h shell/core/errors.h
	@mkdir -p $(dir $@)/plugin
	$(FUZZ_CC) -std=c11 -fPIC -g -O1 $(WARN) -I. -fsanitize=fuzzer-no-link,address \
	   -c $(FUZZ_BUILD)/gen/js_prelude.c -o $(dir $@)/plugin/js_prelude.o
	$(FUZZ_CC) -std=c11 -D_DEFAULT_SOURCE -fPIC -g -O1 $(WARN) -I. $(shell pkg-config --cflags libbson-1.0) \
	   -fsanitize=fuzzer-no-link,address -c shell/js/js_bson.c -o $(dir $@)/plugin/js_bson.o
	$(FUZZ_CC) -std=c11 -D_DEFAULT_SOURCE -fPIC -g -O1 $(WARN) -I. -fsanitize=fuzzer-no-link,address \
	   -c shell/js/js_util.c -o $(dir $@)/plugin/js_util.o
	$(FUZZ_CC) -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -fPIC -g -O1 $(WARN) -I. $(shell pkg-config --cflags libbson-1.0) \
	   -fsanitize=fuzzer-no-link,address -c shell/js/js_sys.c -o $(dir $@)/plugin/js_sys.o
	$(FUZZ_CC)++ -std=c++17 -fPIC -g -O1 $(WARN) -Wno-unknown-warning-option -I. \
	   $(shell pkg-config --cflags $(JS_PKGS) 2>/dev/null) -fsanitize=fuzzer-no-link,address \
	   -shared -o $@ $< $(dir $@)/plugin/js_prelude.o $(dir $@)/plugin/js_bson.o $(dir $@)/plugin/js_util.o \
	   $(dir $@)/plugin/js_sys.o $(JS_LIBS)

$(FUZZ_BUILD)/fuzz_js_bridge: $(FUZZ_BUILD)/shardsh-js.so

# the unit test that replays the corpus and the saved crashes compiles the targets' sources in
$(BUILD)/tests/test_fuzz_regressions: tests/fuzz/fuzz_parser.c tests/fuzz/fuzz_render.c tests/fuzz/fuzz_js_bridge.c \
                                      tests/fuzz/fuzz_reply.c tests/fuzz/fuzz_numbers.c tests/fuzz/fuzz.h

fuzz: deps
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { echo "fuzz: $(FUZZ_CC) is needed (apt-get install clang)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@FUZZ_BUILD=$(FUZZ_BUILD) sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# The REPL-less script runs and the dashboard under valgrind (also part of `make test`).
valgrind: all
	@BINDIR=$(BINDIR) sh tests/integration/valgrind.sh

demo: all
	@BINDIR=$(BINDIR) sh tests/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 bin/shardsh $(DESTDIR)$(PREFIX)/bin/shardsh
	install -m 0755 bin/shardsh-js.so $(DESTDIR)$(PREFIX)/bin/shardsh-js.so
	if [ -f docs/shardsh.1 ]; then install -m 0644 docs/shardsh.1 $(DESTDIR)$(PREFIX)/share/man/man1/; fi

# One list of sources for `make format` and `make format-check` (CI runs the check before the tests).
FORMAT_SRCS = $(sort $(wildcard shell/*.[ch] shell/*/*.[ch] shell/*/*.cpp commands/*.[ch] views/*.[ch] views/*/*.[ch] \
                                tests/shardsim/*.[ch] tests/shardsim/*/*.[ch] tests/unit/*.[ch] \
                                tests/fuzz/*.[ch] bench/*.[ch]))

format:
	clang-format -i $(FORMAT_SRCS)

format-check:
	@clang-format --dry-run -Werror $(FORMAT_SRCS) && echo "format-check: $(words $(FORMAT_SRCS)) files formatted"

# The layout's rules (tests/layout/check.sh): includes go down the layer table only, no circle among the product's
# files (read from its objects, built first), no file over 1,000 lines, no function over 150, nothing unknown at the root.
layers-check: deps
	@$(MAKE) --no-print-directory -j2 $(CORE_OBJS) $(MAIN_OBJ) $(JS_PLUGIN_CSRCS:%.c=$(BUILD)/%.o) \
	   $(filter $(BUILD)/tests/shardsim/%,$(SIM_OBJS))
	@BUILD=$(BUILD) sh tests/layout/check.sh

clean:
	rm -rf build bin

-include $(CORE_OBJS:.o=.d) $(SIM_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(FUZZ_OBJS:.o=.d)
