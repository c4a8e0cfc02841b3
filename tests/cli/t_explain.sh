# t_explain.sh: controlled experiments, captured for real with iotape capture,
# where the cause of the difference is planted; `iotape compare` must rank
# the planted cause first, with numbers of the right size.
#   seek:      two sequential readers on one device vs each on its own
#   fairness:  two identical readers under bfq, one in the idle class, vs equal
#   writeback: a buffered writer with dirty_background_ratio 1 vs 30
#   swap:      a memory-limited run with a holder of anonymous memory, a
#              reader and a heavy writer, vs the same without the writer
. "$(dirname "$0")/../lib.sh"

need_iotape "controlled experiments"
need_root "controlled experiments"
tracefs_check || { skip "controlled experiments" "$TRACEFS_WHY"; exit 0; }
for tool in mkfs.ext4 mkswap ionice jq; do
	command -v $tool > /dev/null || { skip "controlled experiments" "no $tool"; exit 0; }
done

t=$TEST_TMP db=$t/x.db
cap() { "$IOTAPE" capture --quiet --db "$db" --interval 0.25 "$@" 2>> "$t/cap.err" ||
	diag "capture $* failed: $(tail -n 3 "$t/cap.err")"; }
# top RUN_A RUN_B: the first finding's analyzer, score and title (JSON);
# the ranking and each run's totals go to the TAP output as comments
top() { "$IOTAPE" compare --db "$db" --json "$1" "$2" > "$t/cmp.json" &&
	jq -r '.findings[] | "# \(.analyzer) \(.score)"' "$t/cmp.json" >&2 &&
	jq -r '.analyses[] | "# \(.run): commands \(.analysis.commands_real_s) s, \(.analysis.total_mb_s) MB/s, seek mean \(.analysis.seek.mean_sectors)"' "$t/cmp.json" >&2 &&
	jq -r '.findings[0] | "\(.analyzer)|\(.score)|\(.title)"' "$t/cmp.json"; }
num() { jq -r --arg r "$1" ".analyses[] | select(.run == \$r) | .analysis.$2" "$t/cmp.json"; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }

truncate -s 2G "$t/a.img"
truncate -s 2G "$t/b.img"
loop_attach "$t/a.img" && A=$LOOPDEV || { not_ok "attach loop"; tap_finish; }
loop_attach "$t/b.img" && B=$LOOPDEV || { not_ok "attach loop"; tap_finish; }

# ---- seek: one device shared by two sequential readers, or one each ----
r1="dd if=/dev/$A of=/dev/null bs=64k count=8000 iflag=direct"
cap --run seek-one -d "/dev/$A" --cmd "$r1" \
	--cmd "dd if=/dev/$A of=/dev/null bs=64k count=8000 skip=16000 iflag=direct"
cap --run seek-two -d "/dev/$A" -d "/dev/$B" --cmd "$r1" \
	--cmd "dd if=/dev/$B of=/dev/null bs=64k count=8000 skip=16000 iflag=direct"
IFS='|' read -r an sc title <<< "$(top seek-two seek-one)"
check_eq "seek experiment: seek ranked first ($title, $sc)" seek "$an"
case $title in *"interleaved on one device in seek-one"*) ok "seek: names the interleaving in seek-one" ;;
	*) not_ok "seek: names the interleaving in seek-one" "$title" ;; esac
sf1=$(num seek-one seek.switch_frac) sf2=$(num seek-two seek.switch_frac)
m1=$(num seek-one seek.mean_sectors)
gt "$sf1" 0.3 && ! gt "$sf2" 0.05 && ok "seek: switch share $sf1 on one device, $sf2 on two" ||
	not_ok "seek: switch share" "one $sf1, two $sf2"
gt "$m1" 500000 && ok "seek: D2D mean $m1 sectors on one device (regions 2 M sectors apart)" ||
	not_ok "seek: D2D mean on one device" "$m1"

# ---- fairness: bfq, the second reader in the idle class ----
sysfs_set "/sys/block/$A/queue/scheduler" bfq
r2="dd if=/dev/$A of=/dev/null bs=64k count=16000 skip=16000 iflag=direct"
cap --run fair-equal -d "/dev/$A" --cmd "dd if=/dev/$A of=/dev/null bs=64k count=16000 iflag=direct" --cmd "$r2"
cap --run fair-idle -d "/dev/$A" --cmd "dd if=/dev/$A of=/dev/null bs=64k count=16000 iflag=direct" \
	--cmd "ionice -c3 $r2"
IFS='|' read -r an sc title <<< "$(top fair-equal fair-idle)"
check_eq "fairness experiment: fairness ranked first ($title, $sc)" fairness "$an"
j1=$(num fair-equal fairness.jain) j2=$(num fair-idle fairness.jain)
gt "$j1" 0.9 && ! gt "$j2" 0.85 && ok "fairness: Jain's index $j1 equal, $j2 with an idle-class reader" ||
	not_ok "fairness: Jain's index" "equal $j1, idle $j2"
echo none > "/sys/block/$A/queue/scheduler"

# ---- writeback: dirty_background_ratio 1 vs 30, a buffered writer ----
mkfs.ext4 -q -F "/dev/$B"
mkdir -p "$t/mnt"
at_exit "umount '$t/mnt' 2>/dev/null"
mount "/dev/$B" "$t/mnt"
w="dd if=/dev/zero of=$t/mnt/f bs=1M count=700 2>/dev/null; sleep 6"
cap --run wb-1 -d "/dev/$B" --set vm.dirty_background_ratio=1 --cmd "$w"
rm -f "$t/mnt/f"; sync
cap --run wb-30 -d "/dev/$B" --set vm.dirty_background_ratio=30 --cmd "$w"
rm -f "$t/mnt/f"; sync
IFS='|' read -r an sc title <<< "$(top wb-1 wb-30)"
check_eq "writeback experiment: writeback ranked first ($title, $sc)" writeback "$an"
i1=$(num wb-1 writeback.idle_dirty_frac) i2=$(num wb-30 writeback.idle_dirty_frac)
gt "$i2" "$i1" && ok "writeback: idle while dirty $i2 of the time at 30, $i1 at 1" ||
	not_ok "writeback: idle while dirty" "ratio 1: $i1, ratio 30: $i2"
check_eq "writeback: the settings are in the runs" "1 30" \
	"$(num wb-1 writeback.dirty_background_ratio) $(num wb-30 writeback.dirty_background_ratio)"

# ---- swap: memory pressure from a heavy writer, vs no writer ----
truncate -s 256M "$t/s.img"
loop_attach "$t/s.img" && S=$LOOPDEV || { not_ok "attach loop"; tap_finish; }
mkswap -q "/dev/$S" > /dev/null
at_exit "swapoff '/dev/$S' 2>/dev/null"
swapon "/dev/$S"
mkdir -p "$t/mnt/tree"
cp -a /usr/share/perl "$t/mnt/tree/" 2>/dev/null; sync
hold='dd if=/dev/zero bs=100M count=1 2>/dev/null | sleep 8'
read_tree="find $t/mnt/tree -type f -exec md5sum {} + > /dev/null"
cap --run swap-none -d "/dev/$B" -d "/dev/$S" --mem-limit 128M --drop-caches \
	--cmd "$hold" --cmd "$read_tree"
cap --run swap-writer -d "/dev/$B" -d "/dev/$S" --mem-limit 128M --drop-caches \
	--cmd "$hold" --cmd "$read_tree" \
	--cmd "dd if=/dev/zero of=$t/mnt/w bs=1M count=400 conv=fsync 2>/dev/null"
IFS='|' read -r an sc title <<< "$(top swap-none swap-writer)"
check_eq "swap experiment: swap ranked first ($title, $sc)" swap "$an"
s1=$(num swap-none swap.swap_out_mb) s2=$(num swap-writer swap.swap_out_mb)
gt "$s2" "$s1" && ok "swap: swapped out $s2 MB with the writer, $s1 MB without" ||
	not_ok "swap: swapped out more with the writer" "without $s1, with $s2"

w80=$("$IOTAPE" compare --db "$db" seek-one seek-two fair-equal fair-idle | awk 'length > 80' | wc -l)
check_eq "compare of four runs fits 80 columns" 0 "$w80"
tap_finish
