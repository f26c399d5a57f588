#!/bin/sh
# passes: plain asan
# Credentials and TLS, against shardsim --auth (SCRAM-SHA-256/-1) and --tls-cert/--tls-ca: the right password runs
# a command; a wrong one fails with exit status 1 and one line naming the user and the database; no credentials get
# the server's "requires authentication"; --authenticationDatabase picks the user's database; -u alone asks for the
# password without echo (through tmux); TLS works with the CA that signed the server's certificate and fails with
# one clear line under another CA; client certificates are checked against the simulator's CA. No password shows up
# in stdout/stderr, --dry-run output, driver logs (SHARDSH_DEBUG=1), the dashboard header, the history, the
# simulator's command log or its command line. Keys and certificates are made with openssl into the test's temp dir.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

PW='Pw-ann-4711'
PW_RITA='Pw-rita-0815'

# secret_absent NAME SECRET OUTPUT: passes when SECRET is nowhere in OUTPUT
secret_absent() {
   case "$3" in
   *"$2"*) fail "$1" "the password '$2' is shown: [$3]" ;;
   *) pass "$1" ;;
   esac
}

# one_error_line NAME NEEDLE OUTPUT: exactly one line carries NEEDLE, and nothing else than that line and the
# source line with its caret (no driver text)
one_error_line() {
   n=$(printf '%s\n' "$3" | grep -c -F -- "$2")
   lines=$(printf '%s\n' "$3" | grep -c .)
   if [ "$n" = 1 ] && [ "$lines" -le 3 ] && ! printf '%s\n' "$3" | grep -q -i -E 'mongoc|cluster:|DEBUG|serverSelection'; then
      pass "$1"
   else
      fail "$1" "wanted one line with [$2], got: [$3]"
   fi
}

# sim_clean NAME: after sim_stop, shardsim's stderr holds no sanitizer report (ASan/UBSan builds, SHARDSH_SAN=1)
sim_clean() {
   if grep -q -E 'Sanitizer|runtime error' "$TMPD/sim.err" 2>/dev/null; then
      fail "$1" "$(grep -m 3 -E 'Sanitizer|runtime error|#[0-9]' "$TMPD/sim.err" | tr '\n' ' ')"
   else
      pass "$1"
   fi
}

LOG="$TMPD/commands.log"
if ! sim_start --auth "ann:$PW" --auth "rita:$PW_RITA@reports" --log-commands "$LOG"; then
   skip "auth_tls" "shardsim --auth did not start"
   exit 0
fi
HP="127.0.0.1:$SIM_PORT"

# ---- passwords ----

out=$("$SHARDSH" --norc -u ann -p "$PW" "$HP" --eval 'sh.isBalancerRunning()' 2>&1)
rc=$?
check_eq "auth/right password: exit status 0" "0" "$rc"
check_contains "auth/right password: the command ran" "inBalancerRound" "$out"
secret_absent "auth/right password: not shown" "$PW" "$out"

out=$("$SHARDSH" --norc "mongodb://ann:$PW@$HP/" --eval 'sh.isBalancerRunning()' 2>&1)
check_contains "auth/password in the connection string works" "inBalancerRound" "$out"
secret_absent "auth/password in the connection string: not shown" "$PW" "$out"

out=$("$SHARDSH" --norc "$HP" --eval 'sh.isBalancerRunning()' 2>&1)
rc=$?
check_eq "auth/no credentials: exit status 1" "1" "$rc"
check_contains "auth/no credentials: the server's refusal" \
   "MongoServerError[Unauthorized]: command balancerStatus requires authentication (code 13)" "$out"

# -u without a password and no terminal to ask on (setsid: no controlling terminal): a usage error, exit 2, before
# anything is sent (it used to connect without the password and fail to authenticate)
if command -v setsid > /dev/null 2>&1; then
   out=$(setsid "$SHARDSH" --norc -u ann "$HP" --eval 'sh.isBalancerRunning()' 2>&1 < /dev/null)
   rc=$?
   check_eq "auth/-u without a terminal: exit status 2" "2" "$rc"
   one_error_line "auth/-u without a terminal: says there is no terminal to ask on" \
      "no password given, and there is no terminal to ask for it" "$out"
fi

out=$("$SHARDSH" --norc -u ann -p Pw-wrong-1 "$HP" --eval 'sh.isBalancerRunning()' 2>&1)
rc=$?
check_eq "auth/wrong password: exit status 1" "1" "$rc"
one_error_line "auth/wrong password: one line naming user and database" \
   "MongoServerError[AuthenticationFailed]: authentication failed for user 'ann' on database 'admin' (code 18)" "$out"
secret_absent "auth/wrong password: not shown" "Pw-wrong-1" "$out"

out=$("$SHARDSH" --norc "mongodb://ann:Pw-wrong-2@$HP/" --eval 'sh.status()' 2>&1)
rc=$?
check_eq "auth/wrong password in the connection string: exit status 1" "1" "$rc"
one_error_line "auth/wrong password in the connection string: one line" "authentication failed for user 'ann'" "$out"
secret_absent "auth/wrong password in the connection string: not shown" "Pw-wrong-2" "$out"

out=$("$SHARDSH" --norc "mongodb://ann:Pw-wrong-3@$HP/?authMechanism=SCRAM-SHA-1" --eval 'sh.status()' 2>&1)
one_error_line "auth/SCRAM-SHA-1, wrong password: one line" "authentication failed for user 'ann'" "$out"
out=$("$SHARDSH" --norc "mongodb://ann:$PW@$HP/?authMechanism=SCRAM-SHA-1" --eval 'sh.isBalancerRunning()' 2>&1)
check_contains "auth/SCRAM-SHA-1, right password" "inBalancerRound" "$out"

out=$(SHARDSH_DEBUG=1 "$SHARDSH" --norc "mongodb://ann:Pw-wrong-4@$HP/" --eval 'sh.status()' 2>&1)
secret_absent "auth/driver log lines (SHARDSH_DEBUG=1) never show the password" "Pw-wrong-4" "$out"

# ---- --authenticationDatabase ----

out=$("$SHARDSH" --norc -u rita -p "$PW_RITA" --authenticationDatabase reports "$HP" --eval \
   'db.adminCommand({connectionStatus: 1})' 2>&1)
check_contains "auth/--authenticationDatabase of the user works" "user: 'rita', db: 'reports'" "$out"
secret_absent "auth/--authenticationDatabase: not shown" "$PW_RITA" "$out"

out=$("$SHARDSH" --norc -u rita -p "$PW_RITA" "$HP" --eval 'sh.isBalancerRunning()' 2>&1)
rc=$?
check_eq "auth/user of another database, without --authenticationDatabase: exit status 1" "1" "$rc"
one_error_line "auth/user of another database: names the database tried" \
   "authentication failed for user 'rita' on database 'admin'" "$out"

out=$("$SHARDSH" --norc -u ann -p "$PW" --authenticationDatabase reports "$HP" --eval 'sh.isBalancerRunning()' 2>&1)
one_error_line "auth/wrong --authenticationDatabase fails" "authentication failed for user 'ann' on database 'reports'" \
   "$out"
secret_absent "auth/wrong --authenticationDatabase: not shown" "$PW" "$out"

# ---- --dry-run, the dashboard, the simulator's own traces ----

out=$("$SHARDSH" --dry-run --norc "mongodb://ann:Pw-dry-5@$HP/?authSource=admin" --eval 'sh.status()' 2>&1)
secret_absent "auth/--dry-run with a password in the connection string" "Pw-dry-5" "$out"
out=$("$SHARDSH" --dry-run --norc -u ann -p Pw-dry-6 --eval 'db.adminCommand({connectionStatus: 1})' 2>&1)
secret_absent "auth/--dry-run with -p" "Pw-dry-6" "$out"

if "$SHARDSH" --help 2>&1 | grep -q -- '--dashboard'; then
   out=$(TERM=xterm timeout 20 "$SHARDSH" --norc "mongodb://ann:$PW@$HP/" --dashboard --once 2>&1)
   check_contains "auth/dashboard authenticates and draws the cluster" "shard01" "$out"
   secret_absent "auth/dashboard never shows the password" "$PW" "$out"
else
   skip "auth/dashboard header" "no --dashboard in this build"
fi

# PLAIN carries the password itself in its payload: the command log shows every SASL payload as "###"
"$SHARDSH" --norc "mongodb://ann:Pw-plain-7@$HP/?authMechanism=PLAIN" --eval 'sh.status()' > /dev/null 2>&1
plain_b64=$(printf '\000ann\000Pw-plain-7' | base64)
log=$(cat "$LOG")
check_contains "auth/the command log redacts SASL payloads" '"payload" : "###"' "$log"
check_not_contains "auth/the command log never holds a PLAIN payload" "$plain_b64" "$log"
secret_absent "auth/the command log never holds a password" "$PW" "$log"
cmdline=$(tr '\0' ' ' < "/proc/$SIM_PID/cmdline" 2>/dev/null)
check_contains "auth/shardsim's command line keeps the user" "ann:" "$cmdline"
secret_absent "auth/shardsim's command line no longer holds the password" "$PW" "$cmdline"

# ---- the no-echo prompt (tmux) ----

if command -v tmux >/dev/null 2>&1; then
   T="tmux -S $TMPD/tmux.sock"
   HIST="$TMPD/history.auth"
   SH_ABS="$(pwd)/$SHARDSH"
   screen() { $T capture-pane -t auth -p 2>/dev/null; }
   wait_for() {
      i=0
      while [ $i -lt 80 ]; do
         screen | grep -q -F -- "$1" && return 0
         sleep 0.1
         i=$((i + 1))
      done
      return 1
   }
   $T new-session -d -s auth -x 150 -y 40 \
      "SHARDSH_HISTFILE=$HIST NO_COLOR=1 $SH_ABS --norc -u ann $HP; echo EXITED=\$?; sleep 30"
   if wait_for 'Enter password:'; then
      pass "auth/-u alone asks for the password"
      $T send-keys -t auth "$PW" Enter
      wait_for 'test>'
      $T send-keys -t auth 'sh.isBalancerRunning()' Enter
      wait_for 'inBalancerRound' && pass "auth/the prompted password authenticates" ||
         fail "auth/the prompted password authenticates" "$(screen | tail -5)"
      secret_absent "auth/the password prompt does not echo" "$PW" "$(screen)"
      $T send-keys -t auth 'exit' Enter
      wait_for 'EXITED=0' && pass "auth/prompted session leaves with status 0" ||
         fail "auth/prompted session leaves with status 0" "$(screen | tail -3)"
      secret_absent "auth/the history never holds the prompted password" "$PW" "$(cat "$HIST" 2>/dev/null)"
   else
      fail "auth/-u alone asks for the password" "$(screen | tail -3)"
   fi
   $T kill-server 2>/dev/null
   T="tmux -S $TMPD/tmux2.sock"
   $T new-session -d -s auth -x 150 -y 40 \
      "SHARDSH_HISTFILE=$HIST NO_COLOR=1 $SH_ABS --norc -u ann $HP; echo EXITED=\$?; sleep 30"
   if wait_for 'Enter password:'; then
      $T send-keys -t auth 'Pw-typed-wrong-8' Enter
      wait_for 'test>'
      $T send-keys -t auth 'sh.isBalancerRunning()' Enter
      wait_for "authentication failed for user 'ann' on database 'admin'" &&
         pass "auth/a wrongly typed password: one clear error" ||
         fail "auth/a wrongly typed password: one clear error" "$(screen | tail -5)"
      secret_absent "auth/a wrongly typed password is never shown" "Pw-typed-wrong-8" "$(screen)"
      $T send-keys -t auth 'exit' Enter
      wait_for 'EXITED='
   else
      fail "auth/-u alone asks for the password (second session)" "$(screen | tail -3)"
   fi
   $T kill-server 2>/dev/null
else
   skip "auth/no-echo password prompt" "tmux is not installed"
fi
sim_stop
sim_clean "auth/shardsim --auth stopped cleanly"

# ---- shardsim refuses bad flags ----

out=$("$SHARDSIM" --auth "nopassword" 2>&1)
rc=$?
check_eq "auth/shardsim --auth without a password: exit status 2" "2" "$rc"
out=$("$SHARDSIM" --auth "ann:p$(printf '\303\244')ss" 2>&1)
check_contains "auth/shardsim --auth refuses non-ASCII passwords" "printable ASCII" "$out"

# ---- TLS ----

if ! command -v openssl >/dev/null 2>&1; then
   skip "tls" "the openssl command is not installed (make deps installs it)"
   exit 0
fi
C="$TMPD/tls"
mkdir -p "$C"
EC="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
# issue NAME CA SUBJECT EXTENSIONS [DAYS]: a key and a certificate signed by CA, both in NAME.pem (DAYS 0: it expires
# within the second)
issue() {
   openssl req $EC -keyout "$C/$1.key" -out "$C/$1.csr" -subj "$3" 2>/dev/null &&
      printf '%s\n' "$4" > "$C/$1.ext" &&
      openssl x509 -req -in "$C/$1.csr" -CA "$C/$2.pem" -CAkey "$C/$2.key" -set_serial "$(date +%s%N | cut -c8-17)" \
         -days "${5:-2}" -extfile "$C/$1.ext" -out "$C/$1.crt" 2>/dev/null &&
      cat "$C/$1.crt" "$C/$1.key" > "$C/$1.pem"
}
if ! { openssl req -x509 $EC -keyout "$C/ca.key" -out "$C/ca.pem" -days 2 -subj "/CN=shardsh test CA" 2>/dev/null &&
   openssl req -x509 $EC -keyout "$C/other.key" -out "$C/other.pem" -days 2 -subj "/CN=another CA" 2>/dev/null &&
   issue server ca "/CN=localhost" "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth" &&
   issue client ca "/CN=ann" "extendedKeyUsage=clientAuth" &&
   issue stranger other "/CN=stranger" "extendedKeyUsage=clientAuth" &&
   issue elsewhere ca "/CN=db.example.net" "subjectAltName=DNS:db.example.net" &&
   issue expired ca "/CN=localhost" "subjectAltName=IP:127.0.0.1,DNS:localhost" 0; }; then
   skip "tls" "openssl could not make the test certificates"
   exit 0
fi

out=$("$SHARDSIM" --tls-cert "$C/missing.pem" 2>&1)
rc=$?
check_eq "tls/shardsim --tls-cert of a missing file: exit status 2" "2" "$rc"
check_contains "tls/shardsim --tls-cert of a missing file: says which" "missing.pem" "$out"

if ! sim_start --tls-cert "$C/server.pem" --tls-ca "$C/ca.pem" --auth "ann:$PW"; then
   fail "tls/shardsim starts with --tls-cert" "$(cat "$TMPD/sim.err")"
   exit 0
fi
HP="127.0.0.1:$SIM_PORT"

out=$("$SHARDSH" --norc -u ann -p "$PW" --tls --tlsCAFile "$C/ca.pem" "$HP" --eval 'sh.isBalancerRunning()' 2>&1)
rc=$?
check_eq "tls/the CA that signed the server's certificate: exit status 0" "0" "$rc"
check_contains "tls/the CA that signed the server's certificate: the command ran" "inBalancerRound" "$out"

out=$("$SHARDSH" --norc "mongodb://ann:$PW@localhost:$SIM_PORT/?tls=true&tlsCAFile=$C/ca.pem" \
   --eval 'sh.isBalancerRunning()' 2>&1)
check_contains "tls/by host name (localhost)" "inBalancerRound" "$out"

out=$("$SHARDSH" --norc -u ann -p "$PW" --tls --tlsCAFile "$C/other.pem" "$HP" --eval 'sh.isBalancerRunning()' 2>&1)
rc=$?
check_eq "tls/another CA: exit status 1" "1" "$rc"
one_error_line "tls/another CA: one clear certificate error" \
   "TLS: the server's certificate was not signed by the CA in $C/other.pem" "$out"
secret_absent "tls/another CA: no password" "$PW" "$out"

out=$("$SHARDSH" --norc -u ann -p "$PW" --tls --tlsCAFile "$C/ca.pem" --tlsCertificateKeyFile "$C/client.pem" "$HP" \
   --eval 'sh.isBalancerRunning()' 2>&1)
check_contains "tls/a client certificate the simulator's CA signed is accepted" "inBalancerRound" "$out"

out=$("$SHARDSH" --norc -u ann -p "$PW" --tls --tlsCAFile "$C/ca.pem" --tlsCertificateKeyFile "$C/stranger.pem" "$HP" \
   --eval 'sh.isBalancerRunning()' 2>&1)
rc=$?
check_eq "tls/a client certificate of another CA is refused" "1" "$rc"
secret_absent "tls/refused client certificate: no password" "$PW" "$out"

out=$("$SHARDSH" --norc -u ann -p "$PW" "mongodb://$HP/?serverSelectionTimeoutMS=1000&connectTimeoutMS=1000" \
   --eval 'sh.isBalancerRunning()' 2>&1)
rc=$?
check_eq "tls/a client without TLS cannot talk to a TLS server" "1" "$rc"
check_contains "tls/shardsim names the failed handshakes on stderr" "TLS handshake failed" "$(cat "$TMPD/sim.err")"
sim_stop
sim_clean "tls/shardsim --tls-cert stopped cleanly"

# tls_fails NAME CERT EXPECTED: the server presents CERT; the shell fails with one line EXPECTED
tls_fails() {
   if ! sim_start --tls-cert "$C/$2.pem"; then
      fail "$1" "shardsim did not start: $(cat "$TMPD/sim.err")"
      return
   fi
   out=$("$SHARDSH" --norc --tls --tlsCAFile "$C/ca.pem" "127.0.0.1:$SIM_PORT" --eval 'sh.isBalancerRunning()' 2>&1)
   rc=$?
   sim_stop
   if [ "$rc" = 1 ]; then
      one_error_line "$1" "$3" "$out"
   else
      fail "$1" "exit status $rc: $out"
   fi
}
tls_fails "tls/a certificate for another host: one clear line" elsewhere \
   "TLS: the server's certificate is not valid for 127.0.0.1:"
sleep 1 # the expired certificate's validity ends the second it was made
tls_fails "tls/an expired certificate: one clear line" expired "TLS: the server's certificate has expired"
