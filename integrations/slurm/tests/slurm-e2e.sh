#!/usr/bin/env bash
# job_submit/vramplan in a running Slurm: munged, slurmctld and two slurmd (node n1 with
# gpu:rtx4090:1, n2 with gpu:h100:1, both GPUs fake: File=/dev/null) started as the
# current user in a scratch folder on loopback ports; jobs are submitted with sbatch and
# their fate read back with scontrol. Every daemon started here is stopped by its PID on
# exit, whatever happens.
#
# usage: slurm-e2e.sh PLUGIN SLURM_VERSION_NUMBER SANITIZE EXAMPLES_DIR
#   PLUGIN   the built job_submit_vramplan.so, or "none" when it was not built
#   SLURM_VERSION_NUMBER   the version it was built against (0x160508), or "none"
#   SANITIZE meson's b_sanitize ("none" unless a sanitizer build)
# Exit 0 when every check passes, 1 when one fails, 77 (skipped) when Slurm or munge is
# absent, the plugin was not built, was built for another Slurm, or under sanitizers.
# VP_SLURM_KEEP=1 keeps the scratch folder (its logs) after the run.
set -u
plugin=$1 built=$2 sanitize=$3 examples=$4

skip() { echo "SKIP: $*"; exit 77; }
[ "$plugin" != none ] && [ -f "$plugin" ] ||
    skip "the plugin was not built (Slurm's headers were not found: install libslurm-dev)"
[ "$sanitize" = none ] ||
    skip "the plugin is built with -Db_sanitize=$sanitize, which slurmctld cannot load"
for p in slurmctld slurmd sbatch scontrol squeue scancel sinfo munged munge; do
    command -v "$p" >/dev/null 2>&1 || skip "$p is not installed (slurmctld slurmd slurm-client munge)"
done
# The plugin must be loaded by the very Slurm it was built for (plugin_version).
have=$(slurmctld -V 2>/dev/null | awk '{print $NF}')
IFS=. read -r ma mi mc <<<"$have"
case "$ma$mi$mc" in *[!0-9]*|'') skip "cannot read slurmctld's version ('$have')" ;; esac
have_num=$(( (10#$ma << 16) + (10#$mi << 8) + 10#$mc ))
if [ "$built" = none ] || [ "$((built))" -ne "$have_num" ]; then
    skip "the plugin was built for Slurm $built, slurmctld is $have ($(printf '0x%06x' "$have_num"))"
fi

user=$(id -un)
tmp=$(mktemp -d /tmp/vramplan-slurm.XXXXXX) || exit 1
chmod 755 "$tmp"
pids=()
passes=0 fails=0

ctld_pid=
stop_all() {
    # Jobs first (their slurmstepd), while the controller runs; then every daemon by its PID.
    if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
        timeout 5 scancel --quiet --user="$user" >/dev/null 2>&1
    fi
    local p i
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    if [ "${VP_SLURM_KEEP:-0}" = 1 ]; then echo "scratch kept: $tmp"; else rm -rf "$tmp"; fi
}
trap stop_all EXIT
trap 'exit 1' INT TERM

fail() { echo "FAIL $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }
logs() {
    local f
    for f in "$tmp"/log/*.log "$tmp"/munge/munged.log; do
        [ -f "$f" ] && { echo "---- $f (last 30 lines)"; tail -n 30 "$f"; }
    done
}
die() { echo "FAIL $*"; logs; exit 1; }

# A free TCP port on the loopback (nothing answers a connection to it).
used_ports=" "
free_port() {
    local p i
    for i in $(seq 1 200); do
        p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
        case "$used_ports" in *" $p "*) continue ;; esac
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            used_ports="$used_ports$p "
            echo "$p"
            return 0
        fi
    done
    return 1
}

# ---- munge: its own key and socket in the scratch folder
mkdir -p "$tmp/munge" "$tmp/key" "$tmp/log" "$tmp/state" "$tmp/spool/n1" "$tmp/spool/n2" \
    "$tmp/plugins" "$tmp/sheets" "$tmp/out"
chmod 700 "$tmp/key"
chmod 755 "$tmp/munge"
dd if=/dev/urandom of="$tmp/key/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/key/munge.key"
sock=$tmp/munge/munge.socket
munged -F --key-file="$tmp/key/munge.key" --socket="$sock" --pid-file="$tmp/munge/munged.pid" \
    --log-file="$tmp/munge/munged.log" --seed-file="$tmp/key/munged.seed" >/dev/null 2>&1 &
pids+=($!)
for i in $(seq 1 50); do [ -S "$sock" ] && break; sleep 0.1; done
munge -S "$sock" -n 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 || die "munged did not start"

# ---- Slurm: one controller, two nodes with one fake GPU each
host=$(hostname -s)
# Slurm's own plugins (Debian: /usr/lib/<triplet>/slurm-wlm)
slurm_plugindir=
prefix=$(dirname "$(dirname "$(readlink -f "$(command -v slurmctld)")")")
for d in "$prefix"/lib/*/slurm-wlm "$prefix"/lib64/slurm "$prefix"/lib/slurm "$prefix"/lib/*/slurm; do
    [ -f "$d/auth_munge.so" ] && { slurm_plugindir=$d; break; }
done
[ -n "$slurm_plugindir" ] || skip "Slurm's plugins (auth_munge.so) were not found under $prefix"
# The plugin from the build tree, beside Slurm's own: PluginDir is a list.
cp "$plugin" "$tmp/plugins/job_submit_vramplan.so"
# ... linked against libvramplan from the build tree (its RUNPATH is relative to it)
libdir=$(cd "$(dirname "$plugin")/../../lib" 2>/dev/null && pwd)
[ -n "$libdir" ] && [ -f "$libdir/libvramplan.so.0" ] || die "libvramplan.so.0 not found beside the build"

export SLURM_CONF=$tmp/slurm.conf
write_slurm_conf() {
cat > "$SLURM_CONF" <<EOF
ClusterName=vramplan-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
PluginDir=$slurm_plugindir:$tmp/plugins
JobSubmitPlugins=vramplan
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd-%n.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
GresTypes=gpu
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$n1_port CPUs=1 RealMemory=500 Gres=gpu:rtx4090:1
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$n2_port CPUs=1 RealMemory=500 Gres=gpu:h100:1
PartitionName=main Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
EOF
}
# GPU GRES lines need File=: fake GPUs point at /dev/null.
cat > "$tmp/gres.conf" <<EOF
AutoDetect=off
NodeName=n1 Name=gpu Type=rtx4090 File=/dev/null
NodeName=n2 Name=gpu Type=h100 File=/dev/null
EOF
cat > "$tmp/vramplan.conf" <<EOF
# where sheets may be read, and what each GRES type holds
sheet_dirs = ["$tmp/sheets"]
[gpu_types]
rtx4090 = "RTX 4090"
h100 = "H100 SXM"
EOF

# Only this test's Slurm: no variable from a surrounding job or session.
for v in $(env | awk -F= '/^(SLURM_|SBATCH_|SALLOC_|SRUN_|SQUEUE_|SCONTROL_)/{print $1}'); do
    [ "$v" = SLURM_CONF ] || unset "$v"
done
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Start the controller and the two nodes on free ports; another program may take a port
# between the check and the bind, so that is retried (three times).
start_cluster() {
    local try i n attempt
    for try in 1 2 3; do
        ctld_port=$(free_port) && n1_port=$(free_port) && n2_port=$(free_port) || die "no free port"
        write_slurm_conf
        slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
        ctld_pid=$!
        attempt=($!)
        for n in n1 n2; do
            slurmd -D -N "$n" -f "$SLURM_CONF" >"$tmp/log/slurmd-$n.out" 2>&1 &
            attempt+=($!)
        done
        pids+=("${attempt[@]}")
        for i in $(seq 1 200); do
            kill -0 "$ctld_pid" 2>/dev/null || break
            if [ "$(sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle$')" = 2 ]; then return 0; fi
            sleep 0.1
        done
        for n in "${attempt[@]}"; do kill -TERM "$n" 2>/dev/null; done
        for n in "${attempt[@]}"; do wait "$n" 2>/dev/null; done
        grep -qs "Address already in use" "$tmp"/log/*.log "$tmp"/log/*.out || return 1
        echo "a port was taken meanwhile: starting again ($try)"
        for n in "$tmp"/log/*.log "$tmp"/log/*.out; do mv "$n" "$n.$try"; done
    done
    return 1
}

t0=$(date +%s.%N)
start_cluster || die "the controller and the two nodes did not come up in 20 s"
t1=$(date +%s.%N)
grep -q 'job_submit/vramplan: .*vramplan.conf: 1 sheet folder(s), 2 GPU type(s)' \
    "$tmp/log/slurmctld.log" || die "the plugin did not load its configuration"
awk -v a="$t0" -v b="$t1" -v p="$ctld_port" -v q="$n1_port" -v r="$n2_port" 'BEGIN {
    printf "cluster up in %.1f s (slurmctld on port %s, nodes on %s and %s)\n", b - a, p, q, r }'

# ---- the sheets
cat > "$tmp/sheets/13b.toml" <<'EOF'
# 13e9 parameters in bf16: 26,000,000,000 B = 24.21 GiB of weights alone
[model]
parameters = 13_000_000_000
[workload]
task = "inference"
weights = "bf16"
framework = "none"
EOF
cp "$examples/seed.toml" "$tmp/sheets/seed.toml"
printf '[model]\nparameters = 7e9\n' > "$tmp/sheets/bad.toml"
chmod 644 "$tmp/sheets"/*.toml

# submit NAME WANT_STATUS SBATCH_ARGS... -> job id in $job, stderr in $tmp/err
submit() {
    local name=$1 want=$2 out rc; shift 2
    out=$(sbatch --parsable -o "$tmp/out/%j.out" "$@" 2>"$tmp/err")
    rc=$?
    job=${out%%;*}
    if { [ "$want" = 0 ] && [ "$rc" -ne 0 ]; } || { [ "$want" != 0 ] && [ "$rc" -eq 0 ]; }; then
        fail "$name: sbatch exited $rc (want $([ "$want" = 0 ] && echo 0 || echo non-zero))"
        cat "$tmp/err"
        return 1
    fi
    pass
}
# field JOB NAME: one field of scontrol show job
field() { scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
admin_comment() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=//p' | sed 's/ *$//'; }
# ends JOB STATE NODE: the job reaches STATE (within 20 s) on NODE (* for any)
ends() {
    local st i
    for i in $(seq 1 200); do
        st=$(field "$1" JobState)
        case "$st" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
        sleep 0.1
    done
    if [ "$st" = "$2" ] && { [ "$3" = '*' ] || [ "$(field "$1" NodeList)" = "$3" ]; }; then pass; else
        fail "job $1: $st on $(field "$1" NodeList), want $2 on $3"
        scontrol show job "$1"
    fi
}
has() { # has NAME TEXT PIECE
    case "$2" in *"$3"*) pass ;; *) fail "$1: '$3' not in '$2'" ;; esac
}

# 1. 13e9 bf16 parameters on an RTX 4090: refused at submission, with the reason
submit reject-13b 1 --gres=gpu:rtx4090:1 --comment="vramplan:$tmp/sheets/13b.toml" --wrap true
echo "rejected: $(head -n 1 "$tmp/err")"
has reject-13b-message "$(cat "$tmp/err")" \
    "needs at least 24.21 GiB per GPU in load; a gpu:rtx4090 holds 23.61 GiB (RTX 4090)"
has reject-13b-sheet "$(cat "$tmp/err")" "13b.toml"

# 2.-5. submitted together, then followed to their end
# 2. the seed sheet on an RTX 4090: runs; the admin comment holds the estimate and verdict
submit seed-4090 0 --gres=gpu:rtx4090:1 --comment="vramplan:$tmp/sheets/seed.toml" --wrap true &&
    seed_job=$job
# 3. the 13e9 sheet on an H100 (--gpus, named in the environment): runs
VRAMPLAN_SHEET=$tmp/sheets/13b.toml submit 13b-h100 0 --gpus=h100:1 --export=ALL --wrap true &&
    h100_job=$job
# 4. a job without a sheet: untouched, and it runs
submit no-sheet 0 --gres=gpu:rtx4090:1 --comment="an ordinary comment" --wrap true &&
    plain_job=$job
# 5. an untyped GPU request: accepted, marked not checked
submit untyped 0 --gres=gpu:1 --comment="vramplan:$tmp/sheets/13b.toml" --wrap true &&
    untyped_job=$job

if [ -n "${seed_job:-}" ]; then
    ends "$seed_job" COMPLETED n1
    has seed-admin-comment "$(admin_comment "$seed_job")" \
        "vramplan to_confirm gpu:rtx4090 (RTX 4090, 23.61 GiB per GPU): needs at least 19.04 GiB per GPU in load"
fi
if [ -n "${h100_job:-}" ]; then
    ends "$h100_job" COMPLETED n2
    has 13b-h100-admin-comment "$(admin_comment "$h100_job")" \
        "vramplan to_confirm gpu:h100 (H100 SXM, 79.11 GiB per GPU): needs at least 24.21 GiB per GPU in load"
fi
if [ -n "${plain_job:-}" ]; then
    ends "$plain_job" COMPLETED n1
    if [ -z "$(admin_comment "$plain_job")" ]; then pass; else
        fail "no-sheet: admin comment '$(admin_comment "$plain_job")'"; fi
    has no-sheet-comment "$(field "$plain_job" Comment)" "an"
fi
if [ -n "${untyped_job:-}" ]; then
    ends "$untyped_job" COMPLETED '*'
    has untyped-admin-comment "$(admin_comment "$untyped_job")" \
        "vramplan not_checked: the GPU request names no type"
fi

# 6. a malformed sheet, a missing one, one outside sheet_dirs: refused, saying where
submit bad-sheet 1 --gres=gpu:h100:1 --comment="vramplan:$tmp/sheets/bad.toml" --wrap true
has bad-sheet-position "$(cat "$tmp/err")" "$tmp/sheets/bad.toml:2:14: "
submit missing-sheet 1 --gres=gpu:h100:1 --comment="vramplan:$tmp/sheets/none.toml" --wrap true
has missing-sheet-message "$(cat "$tmp/err")" "none.toml: No such file or directory"
submit outside 1 --gres=gpu:h100:1 --comment="vramplan:$tmp/vramplan.conf" --wrap true
has outside-message "$(cat "$tmp/err")" "not under a folder this cluster reads sheets from"

# 7. an update that restates the sheet and the GPU request is checked (job_modify)
submit update-held 0 --hold --gres=gpu:h100:1 --comment="vramplan:$tmp/sheets/13b.toml" --wrap true &&
    { if scontrol update job="$job" comment="vramplan:$tmp/sheets/13b.toml" gres=gpu:rtx4090:1 \
            >"$tmp/err" 2>&1; then
          fail "update-to-rtx4090: accepted"
      else
          has update-to-rtx4090 "$(cat "$tmp/err")" "Requested node configuration is not available"
          has update-to-rtx4090-tres "$(field "$job" TresPerNode)" "gres:gpu:h100:1"
      fi
      if scontrol update job="$job" comment="vramplan:$tmp/sheets/seed.toml" gres=gpu:rtx4090:1 \
            >"$tmp/err" 2>&1; then
          has update-seed-admin-comment "$(admin_comment "$job")" \
              "vramplan to_confirm gpu:rtx4090 (RTX 4090, 23.61 GiB per GPU): needs at least 19.04 GiB"
      else
          fail "update-seed: $(cat "$tmp/err")"
      fi
      timeout 5 scancel --quiet "$job" >/dev/null 2>&1; }

# ---- the time the plugin adds per submission, measured by the plugin in slurmctld
for i in $(seq 1 20); do
    sbatch --hold --parsable -o /dev/null --gres=gpu:rtx4090:1 \
        --comment="vramplan:$tmp/sheets/seed.toml" --wrap true >/dev/null 2>&1 || fail "held job $i"
done
timeout 5 scancel --quiet --user="$user" >/dev/null 2>&1
sed -n 's/.*job_submit\/vramplan: submission of uid [0-9]*: accepted: .* (\([0-9.]*\) us)$/\1/p' \
    "$tmp/log/slurmctld.log" | sort -n > "$tmp/times"
n=$(wc -l < "$tmp/times")
if [ "$n" -ge 20 ]; then
    pass
    awk '{ t[NR] = $1; s += $1 } END {
        printf "plugin time per checked submission (in slurmctld, %d accepted submissions): " \
               "median %.0f us, mean %.0f us, max %.0f us\n", NR, t[int((NR + 1) / 2)], s / NR, t[NR] }' \
        "$tmp/times"
else
    fail "only $n timed submissions in slurmctld's log"
fi
# For scale, sbatch's whole round trip (client, munge, RPC, controller), held submissions
# with and without a sheet, interleaved: the medians of 15 each.
rt() {
    local a b
    a=$(date +%s%N)
    sbatch --hold -o /dev/null "$@" --wrap true >/dev/null 2>&1
    b=$(date +%s%N)
    echo $(( (b - a) / 1000 ))
}
: > "$tmp/rt-with"; : > "$tmp/rt-without"
for i in $(seq 1 15); do
    rt --gres=gpu:rtx4090:1 --comment="vramplan:$tmp/sheets/seed.toml" >> "$tmp/rt-with"
    rt --gres=gpu:rtx4090:1 >> "$tmp/rt-without"
done
timeout 5 scancel --quiet --user="$user" >/dev/null 2>&1
echo "sbatch round trip, median of 15: $(sort -n "$tmp/rt-with" | sed -n 8p) us with a sheet," \
     "$(sort -n "$tmp/rt-without" | sed -n 8p) us without"

# ---- vramplan.conf is read again when it changes; a broken one leaves the previous in use
conf_text() { # conf_text RTX4090_CAPACITY [EXTRA_LINE]
    printf 'sheet_dirs = ["%s"]\n[gpu_types]\nrtx4090 = "%s"\nh100 = "H100 SXM"\n%s' \
        "$tmp/sheets" "$1" "${2:-}"
}
conf_text "RTX 4090" 'broken = 80\n' > "$tmp/vramplan.conf"
submit broken-conf-keeps-previous 1 --gres=gpu:rtx4090:1 --comment="vramplan:$tmp/sheets/13b.toml" --wrap true
if grep -qF "job_submit/vramplan: $tmp/vramplan.conf:5:10: broken is a string" "$tmp/log/slurmctld.log" &&
   grep -qF "(the previous configuration stays in use)" "$tmp/log/slurmctld.log"; then pass; else
    fail "broken-conf-logged: no error with its position in slurmctld's log"; fi
conf_text "32 GiB" > "$tmp/vramplan.conf"  # a site that says its rtx4090 holds 32 GiB
submit reloaded-conf 0 --hold --gres=gpu:rtx4090:1 --comment="vramplan:$tmp/sheets/13b.toml" --wrap true &&
    has reloaded-conf-admin-comment "$(admin_comment "$job")" "gpu:rtx4090 (32 GiB, 32.00 GiB per GPU)"
timeout 5 scancel --quiet --user="$user" >/dev/null 2>&1

# ---- a broken vramplan.conf stops the controller at start, saying where
kill -TERM "$ctld_pid"
wait "$ctld_pid" 2>/dev/null
conf_text "RTX 4090" 'rtx4090 = "L4"\n' > "$tmp/vramplan.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$tmp/log/slurmctld-broken.out" 2>&1 &
ctld_pid=$!
pids+=($!)
for i in $(seq 1 100); do kill -0 "$ctld_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$ctld_pid" 2>/dev/null; then
    fail "broken-conf-at-start: slurmctld still runs after 10 s"
else
    wait "$ctld_pid"; rc=$?
    if [ "$rc" -ne 0 ] && grep -qF "$tmp/vramplan.conf:5:1: GPU type 'rtx4090' is listed twice" \
        "$tmp/log/slurmctld.log"; then pass; else
        fail "broken-conf-at-start: exit $rc"; tail -n 5 "$tmp/log/slurmctld.log"; fi
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ] || { logs; exit 1; }
exit 0
