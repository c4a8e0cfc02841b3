# tests/score/score_lib.sh: the scoring half of the scoreboard (sourced by
# score.sh after the captures and the blind copy): reads $MANIFEST, asks
# `iotape report --json` and `iotape compare --json` of each copy, measures
# the slowdowns and the kernel's delays in the full copy, prints the table
# and the totals, writes $SCORE_DIR/score.json, exits with the verdict.

# causes DB ARGS...: the analyzers of the causes (cause == 1), in rank order,
# of `iotape report --json ARGS`; "?" when report fails
report_causes() {
	local db=$1; shift
	"$IOTAPE" report --db "$db" --json "$@" 2> /dev/null |
		jq -r '[.findings[] | select(.cause == 1) | .analyzer] | join(" ")' 2> /dev/null ||
		echo "?"
}

# compare_json DB ARGS...: `iotape compare --json ARGS` (empty on failure)
compare_json() {
	local db=$1; shift
	"$IOTAPE" compare --db "$db" --json "$@" 2> /dev/null
}

# real_s NAME IDX: command IDX's real seconds in the full capture
real_s() {
	sqlite3 "$FULL" "SELECT real_s FROM commands c JOIN runs r ON r.id = c.run
		WHERE r.name = '$1' AND c.idx = $2"
}

# delay_s NAME IDX KIND: the kernel-measured delay of KIND (blkio: block I/O;
# swap: swap-in, direct reclaim and thrashing; cpu: run delay) summed over the
# tasks of command IDX's family in the full capture (its root: the task whose
# PID.cmd is IDX; the rest: descendants by ppid), seconds; empty without
# per-task samples
delay_s() {
	local fields
	case $3 in
	blkio) fields="'blkio_delay_ns'" ;;
	swap) fields="'swapin_delay_ns','freepages_delay_ns','thrashing_delay_ns'" ;;
	cpu) fields="'cpu_delay_ns'" ;;
	*) return ;;
	esac
	sqlite3 "$FULL" "
	WITH RECURSIVE
	r AS (SELECT id FROM runs WHERE name = '$1'),
	t AS (SELECT CAST(substr(key, 1, instr(key, '.') - 1) AS INTEGER) AS pid,
		     substr(key, instr(key, '.') + 1) AS f, max(value) AS v
	      FROM samples WHERE run = (SELECT id FROM r) AND source = 'task'
	      GROUP BY key),
	pp AS (SELECT pid, CAST(v AS INTEGER) AS ppid FROM t WHERE f = 'ppid'),
	root AS (SELECT pid FROM t WHERE f = 'cmd' AND v = $2),
	fam(pid) AS (SELECT pid FROM root
		     UNION SELECT pp.pid FROM pp JOIN fam ON pp.ppid = fam.pid)
	SELECT CASE WHEN EXISTS (SELECT 1 FROM root)
		    THEN printf('%.4f', coalesce(sum(v), 0) / 1e9) END
	FROM t WHERE pid IN (SELECT pid FROM fam) AND f IN ($fields)"
}

# dropped NAME: the per-task delays the capture left out (the kernel's
# errors, task_delays_dropped), 0 when none
dropped() {
	sqlite3 "$FULL" "SELECT coalesce(max(CAST(s.value AS INTEGER)), 0) FROM run_stats s
		JOIN runs r ON r.id = s.run WHERE r.name = '$1' AND s.key = 'task_delays_dropped'"
}

# median V...: the median of the numbers given (empty for none)
median() {
	printf '%s\n' "$@" | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (NR) printf "%.4f", m }'
}

# ---- rows ------------------------------------------------------------------------
ROWS_JSON=$SCORE_DIR/rows.jsonl
: > "$ROWS_JSON"
# totals per copy
declare -A T_REP_OK T_REP_N T_CMP_OK T_CMP_N T_ERRS T_FA T_FA_N
for c in full blind; do
	T_REP_OK[$c]=0 T_REP_N[$c]=0 T_CMP_OK[$c]=0 T_CMP_N[$c]=0 T_ERRS[$c]=
	T_FA[$c]=0 T_FA_N[$c]=0
done
NOTES=()
NO_WORSE=0     # compares without .worse (the changed run taken as the worse)

# columns: scenario, variation (VAR/nb and VAR/nc: its null pairs, base
# and changed), copy, reports with the planted cause first (null rows:
# reports with no cause), compare's first cause the planted one (null:
# "none" or "CAUSE"), compare's first cause, the planted finding's cost,
# the slowdown measured, |cost - measured| / measured, and (blind rows) the
# full capture's kernel-measured delay of the planted kind, changed less base
header() {
	printf '%-9s %-15s %-5s %-5s %-4s %-10s %6s %6s %4s %6s\n' scenario variation \
		copy rep cmp "first" cost_s meas_s err% acct_s
	printf '%s\n' "-------------------------------------------------------------------------------"
}

# row S V COPY REPORT COMPARE FIRST COST MEAS ERR DACCT: one line of the table
row() {
	printf '%-9.9s %-15.15s %-5s %-5s %-4.4s %-10.10s %6s %6s %4s %6s\n' "$@"
}

fmt() { [ -n "$1" ] && printf '%.2f' "$1" || printf -- -; }

# measure S V REPS: the full capture's figures of a variation, for both
# copies' rows: M_MEAS (the median over repeats of the slowed command's real
# time, changed less base), M_DACCT (the same of delay_s), M_NDROP (the
# per-task delays the captures left out)
measure() {
	local s=$1 v=$2 reps=$3 idx=${S_IDX[$1]} kind=${S_KIND[$1]} i rb rc d_chg d_base
	local meas_l=() dacct_l=()
	M_NDROP=0
	for ((i = 1; i <= reps; i++)); do
		rb=$(real_s "$s-$v-base.$i" "$idx") rc=$(real_s "$s-$v-changed.$i" "$idx")
		meas_l+=("$(awk -v a="$rc" -v b="$rb" \
			'BEGIN { if (a != "" && b != "") printf "%.4f", a - b }')")
		d_chg=$(delay_s "$s-$v-changed.$i" "$idx" "$kind")
		d_base=$(delay_s "$s-$v-base.$i" "$idx" "$kind")
		M_NDROP=$((M_NDROP + $(dropped "$s-$v-changed.$i") + $(dropped "$s-$v-base.$i")))
		[ -n "$d_chg" ] && [ -n "$d_base" ] &&
			dacct_l+=("$(awk -v a="$d_chg" -v b="$d_base" 'BEGIN { printf "%.4f", a - b }')")
	done
	M_MEAS=$(median "${meas_l[@]}")
	M_DACCT=$(median "${dacct_l[@]}")
}

# score_planted S V REPS COPY: one planted row (after measure S V REPS)
score_planted() {
	local s=$1 v=$2 reps=$3 copy=$4 db plant=${S_PLANT[$1]} kind=${S_KIND[$1]}
	local i first rep_ok=0 rep_shown reps_list=() cj cfirst cost worse verdict causes direction
	local err='' note='' cmp_ok=0 meas=$M_MEAS dacct=$M_DACCT ndrop=$M_NDROP
	local base=$s-$v-base chg=$s-$v-changed
	db=$FULL; [ "$copy" = blind ] && db=$BLIND
	for ((i = 1; i <= reps; i++)); do
		first=$(report_causes "$db" "$chg.$i")
		first=${first%% *}
		reps_list+=("${first:--}")
		[ "$first" = "$plant" ] && rep_ok=$((rep_ok + 1))
	done
	if [ "$reps" -gt 1 ]; then
		cj=$(compare_json "$db" --group-by "$base.*,$chg.*" "$base.*" "$chg.*")
	else
		cj=$(compare_json "$db" "$base.1" "$chg.1")
	fi
	# compare's first cause, the planted finding's cost, .worse, the verdict,
	# every cause with its cost and .direction, in one pass
	IFS=$'\037' read -r cfirst cost worse verdict causes direction < <(jq -r --arg p "$plant" '
		.comparisons[0] as $c | [$c.findings[] | select(.cause == 1)] as $k |
		[($k[0].analyzer // "-"),
		 ([$c.findings[] | select(.analyzer == $p) | .cost_s][0] // 0 | tostring),
		 ($c.worse // ""), ($c.verdict // ""),
		 ([$k[] | "\(.analyzer) \(.cost_s)"] | join(", ")),
		 ($c.direction // "" | tostring)] | join("\u001f")' \
		<<< "$cj" 2> /dev/null)
	if [ -z "$cj" ]; then
		cfirst="?" cost=0 note="compare failed"
	elif [ -z "$cfirst" ]; then
		cfirst="?" cost=0
		note="compare compared nothing: $(jq -r '.comparisons[0] | tostring' <<< "$cj" |
			cut -c 1-60)"
	elif [ -z "$worse" ]; then
		NO_WORSE=$((NO_WORSE + 1))
	elif [ "${worse/-base/}" != "$worse" ]; then
		note="compare explains $worse, the base"
		cfirst="($cfirst)"
	fi
	[ "$cfirst" = "$plant" ] && cmp_ok=1
	if [ -n "$meas" ] && awk -v m="$meas" 'BEGIN { exit !(m > 0) }'; then
		err=$(awk -v c="$cost" -v m="$meas" 'BEGIN { d = c - m; if (d < 0) d = -d;
			printf "%.0f", 100 * d / m }')
		T_ERRS[$copy]+="$err "
	else
		note="${note:+$note; }no slowdown measured (${meas:-none})"
	fi
	if [ -n "${S_CMPONLY[$s]:-}" ]; then
		rep_shown=n/a
	else
		rep_shown=$rep_ok/$reps
		T_REP_OK[$copy]=$((T_REP_OK[$copy] + rep_ok))
		T_REP_N[$copy]=$((T_REP_N[$copy] + reps))
	fi
	T_CMP_OK[$copy]=$((T_CMP_OK[$copy] + cmp_ok))
	T_CMP_N[$copy]=$((T_CMP_N[$copy] + 1))
	row "$s" "$v" "$copy" "$rep_shown" "$( ((cmp_ok)) && echo yes || echo no)" \
		"$cfirst" "$(fmt "$cost")" "$(fmt "$meas")" "${err:--}" \
		"$([ "$copy" = blind ] && fmt "$dacct" || echo)$([ "$copy" = blind ] && ((ndrop)) && echo '*')"
	[ -n "$note" ] && NOTES+=("$s $v $copy: $note")
	jq -nc --arg s "$s" --arg v "$v" --arg copy "$copy" --arg plant "$plant" \
		--arg kind "$kind" --argjson reps "$reps" --argjson rep_ok "$rep_ok" \
		--arg reports "${reps_list[*]}" --arg cfirst "$cfirst" \
		--argjson cmp_ok "$cmp_ok" --arg cost "$cost" --arg meas "$meas" \
		--arg err "$err" --arg dacct "$dacct" --arg note "$note" --argjson ndrop "$ndrop" \
		--arg verdict "$verdict" --arg causes "$causes" --arg worse "$worse" \
		--arg direction "$direction" \
		'{type: "planted", scenario: $s, variation: $v, copy: $copy, planted: $plant,
		  kind: $kind, repeats: $reps, report_first: ($reports | split(" ")),
		  report_planted_first: $rep_ok, compare_first: $cfirst,
		  compare_planted_first: ($cmp_ok == 1), compare_causes: $causes,
		  verdict: $verdict, worse: $worse, direction: $direction,
		  cost_s: ($cost | tonumber? // null),
		  measured_s: ($meas | tonumber? // null),
		  cost_error_pct: ($err | tonumber? // null),
		  delay_acct_s: ($dacct | tonumber? // null),
		  delay_acct_dropped: $ndrop, note: $note}' >> "$ROWS_JSON"
}

# score_null S LABEL COPY A B [RUN...]: causes claimed on the null pair A B
# (compare) and in the reports of RUN... (healthy runs); one row
score_null() {
	local s=$1 label=$2 copy=$3 a=$4 b=$5 db r first bad=0 n=0 cj cfirst claimed=()
	shift 5
	db=$FULL; [ "$copy" = blind ] && db=$BLIND
	for r in "$@"; do
		first=$(report_causes "$db" "$r")
		n=$((n + 1))
		if [ -n "$first" ]; then
			bad=$((bad + 1))
			claimed+=("report $r: $first")
		fi
	done
	cj=$(compare_json "$db" "$a" "$b")
	cfirst=$(jq -r '[.comparisons[0].findings[]? | select(.cause == 1) | .analyzer][0] // "-"' \
		<<< "$cj" 2> /dev/null)
	[ -z "$cj" ] && cfirst="?"
	[ "$cfirst" != - ] && claimed+=("compare $a $b: $cfirst")
	T_FA[$copy]=$((T_FA[$copy] + bad + ($([ "$cfirst" != - ] && echo 1 || echo 0))))
	T_FA_N[$copy]=$((T_FA_N[$copy] + n + 1))
	row "$s" "$label" "$copy" "$( ((n)) && echo "$((n - bad))/$n" || echo -)" \
		"$([ "$cfirst" = - ] && echo none || echo CAUS)" \
		"$cfirst" "" "" "" ""
	jq -nc --arg s "$s" --arg v "$label" --arg copy "$copy" --arg a "$a" --arg b "$b" \
		--arg claimed "$(printf '%s\n' "${claimed[@]}")" --argjson n "$n" \
		--argjson bad "$bad" --arg cfirst "$cfirst" \
		'{type: "null", scenario: $s, variation: $v, copy: $copy, pair: [$a, $b],
		  reports: $n, reports_with_cause: $bad, compare_first: $cfirst,
		  claimed: ($claimed | split("\n") | map(select(. != "")))}' >> "$ROWS_JSON"
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f", 100 * a / b; else printf "-" }'; }

score_all() {
	local kind s v reps psi c skipped=() line
	header
	while IFS=$'\t' read -r kind s v reps psi; do
		case $kind in
		skip) skipped+=("$s: $v"); continue ;;
		var) ;;
		*) continue ;;
		esac
		selected "$s" || continue
		if [ "${S_PLANT[$s]:-}" = "" ]; then
			NOTES+=("$s: no scenario file now; not scored")
			continue
		fi
		for c in full blind; do
			if [ "${S_PLANT[$s]}" = - ]; then
				score_null "$s" "$v" "$c" "$s-$v.1" "$s-$v.2" "$s-$v.1" "$s-$v.2"
				continue
			fi
			[ "$c" = full ] && measure "$s" "$v" "$reps"
			score_planted "$s" "$v" "$reps" "$c"
			if [ "$reps" -ge 2 ]; then
				score_null "$s" "$v/nb" "$c" "$s-$v-base.1" "$s-$v-base.2"
				score_null "$s" "$v/nc" "$c" "$s-$v-changed.1" "$s-$v-changed.2"
			fi
		done
	done < "$MANIFEST"
	echo
	local ok=1 errmed
	for c in full blind; do
		errmed=$(median ${T_ERRS[$c]})
		[ -n "$errmed" ] && errmed=$(printf '%.0f' "$errmed")
		printf '%-5s planted first: report %d/%d (%s%%), compare %d/%d (%s%%);\n' "$c" \
			"${T_REP_OK[$c]}" "${T_REP_N[$c]}" "$(pct "${T_REP_OK[$c]}" "${T_REP_N[$c]}")" \
			"${T_CMP_OK[$c]}" "${T_CMP_N[$c]}" "$(pct "${T_CMP_OK[$c]}" "${T_CMP_N[$c]}")"
		printf '      median cost error %s%%; false alarms %d of %d null pairs and healthy runs\n' \
			"${errmed:--}" "${T_FA[$c]}" "${T_FA_N[$c]}"
		awk -v a="${T_REP_OK[$c]}" -v b="${T_REP_N[$c]}" -v x="${T_CMP_OK[$c]}" \
			-v y="${T_CMP_N[$c]}" -v e="${errmed:-1000}" -v f="${T_FA[$c]}" \
			'BEGIN { exit !(b > 0 && y > 0 && a >= 0.9 * b && x >= 0.9 * y &&
				e <= 25 && f == 0) }' || ok=0
	done
	echo "targets: planted first >= 90% in report and compare, median cost error"
	echo "  <= 25%, no cause on a null pair or healthy run (each copy):" \
		"$( ((ok)) && echo met || echo MISSED)"
	for line in "${skipped[@]}"; do echo "skipped: $line"; done | fold -s -w 80
	local cs
	for cs in "${!S_CMPONLY[@]}"; do
		[ -n "${S_CMPONLY[$cs]}" ] && echo "compare only: $cs (report n/a: one run has no" \
			"reference to call it slow by)"
	done
	((NO_WORSE)) && echo "note: $NO_WORSE compares gave no .worse: the changed run was taken" \
		"as the worse"
	echo "acct_s: the full capture's kernel-measured delay of the planted kind in the"
	echo "  slowed command's family, changed less base; '*': some per-task delays were"
	echo "  left out (the kernel's errors: task_delays_dropped)"
	for line in "${NOTES[@]}"; do echo "note: $line"; done | fold -s -w 80
	jq -s --argjson ok "$ok" --arg dir "$SCORE_DIR" \
		--arg kernel "$(uname -r)" --arg when "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		'{targets_met: ($ok == 1), dir: $dir, kernel: $kernel, scored: $when,
		  rows: .}' "$ROWS_JSON" > "$SCORE_DIR/score.json"
	echo "rows: $SCORE_DIR/score.json"
	((ok)) && exit 0
	exit 1
}
