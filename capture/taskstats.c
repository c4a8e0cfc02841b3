/* The taskstats netlink decoder and request builder (see taskstats.h):
 * netlink headers walked by their lengths, struct taskstats read by the
 * offsets of the uapi header, each field only when the kernel's length
 * covers it. */
#include "capture/taskstats.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "lib/util.h"

const char *taskstats_strerror(int rc)
{
	switch (rc < 0 ? -rc : rc) {
	case TS_OK: return "no error";
	case TS_E_SHORT: return "a netlink message or attribute runs past the end";
	case TS_E_LENGTH: return "a netlink length shorter than its header";
	case TS_E_STATS: return "a taskstats structure too short for version 1";
	}
	return "unknown taskstats error";
}

/* Whether a struct taskstats of len bytes holds field f. */
#define COVERS(len, f) (offsetof(struct taskstats, f) + \
			sizeof(((struct taskstats *)0)->f) <= (len))

int taskstats_decode(const uint8_t *buf, size_t len, struct task_acct *t)
{
	struct taskstats s;

	memset(t, 0, sizeof(*t));
	if (!COVERS(len, cpu_run_virtual_total))
		return -TS_E_STATS;
	memset(&s, 0, sizeof(s));
	memcpy(&s, buf, len < sizeof(s) ? len : sizeof(s));
	t->version = s.version;
	t->exitcode = s.ac_exitcode;
	t->cpu_count = s.cpu_count;
	t->cpu_delay_ns = s.cpu_delay_total;
	t->blkio_count = s.blkio_count;
	t->blkio_delay_ns = s.blkio_delay_total;
	t->swapin_count = s.swapin_count;
	t->swapin_delay_ns = s.swapin_delay_total;
	t->cpu_ns = s.cpu_run_virtual_total;   /* sum_exec_runtime, ns */
	t->have = TA_HAVE_DELAY;
	if (COVERS(len, ac_majflt)) {
		memcpy(t->comm, s.ac_comm, sizeof(s.ac_comm));
		t->comm[sizeof(t->comm) - 1] = '\0';
		t->pid = s.ac_pid;
		t->tgid = s.ac_pid;
		t->ppid = s.ac_ppid;
		t->etime_us = s.ac_etime;
		t->majflt = s.ac_majflt;
		t->have |= TA_HAVE_BASIC;
	}
	if (COVERS(len, write_bytes)) {
		t->read_bytes = s.read_bytes;
		t->write_bytes = s.write_bytes;
		t->have |= TA_HAVE_IO;
	}
	if (COVERS(len, freepages_delay_total)) {
		t->freepages_count = s.freepages_count;
		t->freepages_delay_ns = s.freepages_delay_total;
		t->have |= TA_HAVE_FREEPAGES;
	}
	if (COVERS(len, thrashing_delay_total)) {
		t->thrashing_count = s.thrashing_count;
		t->thrashing_delay_ns = s.thrashing_delay_total;
		t->have |= TA_HAVE_THRASHING;
	}
	if (COVERS(len, compact_delay_total)) {
		t->compact_count = s.compact_count;
		t->compact_delay_ns = s.compact_delay_total;
		t->have |= TA_HAVE_COMPACT;
	}
	if (COVERS(len, ac_tgid) && s.ac_tgid) {
		t->tgid = s.ac_tgid;
		t->have |= TA_HAVE_TGID;
	}
	return 0;
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* One attribute at buf + off of a region ending at end: its type (flags
 * masked), payload and the offset of the next. Returns 1, 0 at the end,
 * or a negative error (the offset in *bad). */
static int next_attr(const uint8_t *buf, size_t *off, size_t end, uint16_t *type,
		     const uint8_t **val, size_t *vlen, size_t *bad)
{
	size_t o = *off, alen;

	if (o + NLA_HDRLEN > end)
		return o >= end ? 0 : (*bad = o, -TS_E_SHORT);
	alen = get16(buf + o);
	if (alen < NLA_HDRLEN) {
		*bad = o;
		return -TS_E_LENGTH;
	}
	if (o + alen > end) {
		*bad = o;
		return -TS_E_SHORT;
	}
	*type = get16(buf + o + 2) & NLA_TYPE_MASK;
	*val = buf + o + NLA_HDRLEN;
	*vlen = alen - NLA_HDRLEN;
	*off = o + NLA_ALIGN(alen);
	return 1;
}

/* An AGGR_PID or AGGR_TGID attribute: the id and the stats inside. */
static int aggr(const uint8_t *buf, size_t off, size_t end, int tgid,
		taskstats_fn fn, void *ctx, struct taskstats_reply *rep,
		size_t *bad)
{
	uint16_t type;
	const uint8_t *val;
	size_t vlen;
	uint32_t id = 0;
	int rc;

	while ((rc = next_attr(buf, &off, end, &type, &val, &vlen, bad)) > 0) {
		struct task_acct t;
		if ((type == TASKSTATS_TYPE_PID || type == TASKSTATS_TYPE_TGID) &&
		    vlen >= 4) {
			id = get32(val);
			continue;
		}
		if (type != TASKSTATS_TYPE_STATS)
			continue;
		if (taskstats_decode(val, vlen, &t)) {
			*bad = (size_t)(val - buf) - NLA_HDRLEN;
			return -TS_E_STATS;
		}
		if (!(t.have & TA_HAVE_BASIC) || !t.pid) {
			t.pid = id;
			if (!(t.have & TA_HAVE_TGID))
				t.tgid = id;
		}
		rep->nstats++;
		if ((rc = fn(ctx, &t, tgid)))
			return rc;
	}
	return rc;
}

/* The attributes of a genetlink message of family (exit events, replies). */
static int stats_msg(const uint8_t *buf, size_t off, size_t end, taskstats_fn fn,
		     void *ctx, struct taskstats_reply *rep, size_t *bad)
{
	uint16_t type;
	const uint8_t *val;
	size_t vlen;
	int rc;

	while ((rc = next_attr(buf, &off, end, &type, &val, &vlen, bad)) > 0) {
		size_t in = (size_t)(val - buf);
		if (type == TASKSTATS_TYPE_AGGR_PID || type == TASKSTATS_TYPE_AGGR_TGID) {
			rc = aggr(buf, in, in + vlen, type == TASKSTATS_TYPE_AGGR_TGID,
				  fn, ctx, rep, bad);
			if (rc)
				return rc;
		}
	}
	return rc;
}

/* The controller's reply: CTRL_ATTR_FAMILY_ID. */
static int family_msg(const uint8_t *buf, size_t off, size_t end,
		      struct taskstats_reply *rep, size_t *bad)
{
	uint16_t type;
	const uint8_t *val;
	size_t vlen;
	int rc;

	while ((rc = next_attr(buf, &off, end, &type, &val, &vlen, bad)) > 0)
		if (type == CTRL_ATTR_FAMILY_ID && vlen >= 2)
			rep->family = get16(val);
	return rc;
}

int taskstats_parse(const uint8_t *buf, size_t len, uint16_t family,
		    taskstats_fn fn, void *ctx, struct taskstats_reply *rep,
		    size_t *bad_off)
{
	size_t off = 0, bad = 0;
	int rc = 0;

	memset(rep, 0, sizeof(*rep));
	while (off < len && !rc) {
		uint32_t mlen;
		uint16_t type;
		size_t end, body;

		if (off + NLMSG_HDRLEN > len) {
			bad = off;
			rc = -TS_E_SHORT;
			break;
		}
		mlen = get32(buf + off);
		type = get16(buf + off + 4);
		if (mlen < NLMSG_HDRLEN) {
			bad = off;
			rc = -TS_E_LENGTH;
			break;
		}
		if (off + mlen > len) {
			bad = off;
			rc = -TS_E_SHORT;
			break;
		}
		end = off + mlen;
		body = off + NLMSG_HDRLEN;
		if (type == NLMSG_ERROR) {
			int32_t e;
			if (body + 4 > end) {
				bad = off;
				rc = -TS_E_SHORT;
				break;
			}
			memcpy(&e, buf + body, 4);
			if (!e)
				rep->acked = 1;
			else if (!rep->error)
				rep->error = e;
		} else if (type == GENL_ID_CTRL || type == family) {
			uint8_t cmd;
			if (body + GENL_HDRLEN > end) {
				bad = off;
				rc = -TS_E_SHORT;
				break;
			}
			cmd = buf[body];
			body += GENL_HDRLEN;
			if (type == GENL_ID_CTRL && cmd == CTRL_CMD_NEWFAMILY)
				rc = family_msg(buf, body, end, rep, &bad);
			else if (type == family && cmd == TASKSTATS_CMD_NEW)
				rc = stats_msg(buf, body, end, fn, ctx, rep, &bad);
		}
		off += NLMSG_ALIGN(mlen);
	}
	if (rc && bad_off)
		*bad_off = bad;
	return rc;
}

/* A genetlink request with one attribute into buf (cap bytes). */
static size_t request(uint8_t *buf, size_t cap, uint16_t type, uint8_t cmd,
		      uint8_t version, uint32_t seq, uint16_t atype,
		      const void *val, size_t vlen)
{
	size_t alen = NLA_HDRLEN + vlen;
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN + NLA_ALIGN(alen);
	struct nlmsghdr nh = {
		.nlmsg_len = (uint32_t)len, .nlmsg_type = type,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = seq,
	};
	struct genlmsghdr gh = { .cmd = cmd, .version = version };
	struct nlattr na = { .nla_len = (uint16_t)alen, .nla_type = atype };

	if (len > cap || alen > 0xffff)
		return 0;
	memset(buf, 0, len);
	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + NLMSG_HDRLEN, &gh, sizeof(gh));
	memcpy(buf + NLMSG_HDRLEN + GENL_HDRLEN, &na, sizeof(na));
	memcpy(buf + NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN, val, vlen);
	return len;
}

size_t taskstats_req_family(uint8_t *buf, size_t cap, uint32_t seq)
{
	return request(buf, cap, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, seq,
		       CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
		       sizeof(TASKSTATS_GENL_NAME));
}

size_t taskstats_req_register(uint8_t *buf, size_t cap, uint16_t family,
			      uint32_t seq, const char *cpumask, int deregister)
{
	return request(buf, cap, family, TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION,
		       seq, deregister ? TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK
				       : TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
		       cpumask, strlen(cpumask) + 1);
}

size_t taskstats_req_pid(uint8_t *buf, size_t cap, uint16_t family,
			 uint32_t seq, uint32_t pid)
{
	return request(buf, cap, family, TASKSTATS_CMD_GET, TASKSTATS_GENL_VERSION,
		       seq, TASKSTATS_CMD_ATTR_PID, &pid, sizeof(pid));
}
