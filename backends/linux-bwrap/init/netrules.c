/* Interception rules in the sandbox's own network namespace, over raw
 * netlink (no nft binary, no libnftnl):
 *
 *   - a default route over lo with source 127.0.0.1, so a connect() to any
 *     IPv4 address gets as far as the output hook instead of failing with
 *     ENETUNREACH;
 *   - table ip srt-intercept, chain nat-out (type nat, hook output,
 *     priority -100): TCP to an address outside 127.0.0.0/8 is redirected
 *     to 127.0.0.1:<port>, where the bridge listens and reads the original
 *     destination back with SO_ORIGINAL_DST;
 *   - chain filter-out (type filter, hook output, priority 0), which sees
 *     the addresses after the redirect: anything still addressed outside
 *     127.0.0.0/8 (UDP, ICMP, a TCP packet the redirect missed) is
 *     dropped. So the route opens no path out: the namespace has no other
 *     interface, and what is not handed to the bridge goes nowhere. The
 *     sender gets EPERM at once. Before the drop, a rule copies the first
 *     bytes of each such packet (at most SRT_NETRULES_LOG_RATE a second)
 *     to the netlink log group SRT_NETRULES_LOG_GROUP, which the bridge
 *     reads (srt__netrules_log_open) to record each as a violation naming
 *     its destination.
 *
 * IPv6 gets no route: a connection to a non-loopback IPv6 address fails
 * at once with ENETUNREACH, as it did before. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_log.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "backends/linux-bwrap/init/netrules.h"

#define NLBUF 4096

struct nlb {
	char b[NLBUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	size_t len;
	int bad; /* overflowed */
	size_t nest[8];
	int depth;
	uint32_t seq;
	int nmsg; /* messages that ask for an ack */
};

static struct nlmsghdr *msg_start(struct nlb *m, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *h;

	if (m->len + NLMSG_HDRLEN > sizeof(m->b)) {
		m->bad = 1;
		return NULL;
	}
	h = (struct nlmsghdr *)(m->b + m->len);
	memset(h, 0, NLMSG_HDRLEN);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = ++m->seq;
	h->nlmsg_len = NLMSG_HDRLEN;
	m->len += NLMSG_HDRLEN;
	if (flags & NLM_F_ACK)
		m->nmsg++;
	return h;
}

static void put(struct nlb *m, const void *p, size_t n)
{
	size_t al = NLMSG_ALIGN(n);

	if (m->bad || m->len + al > sizeof(m->b)) {
		m->bad = 1;
		return;
	}
	memset(m->b + m->len, 0, al);
	memcpy(m->b + m->len, p, n);
	m->len += al;
}

static void msg_end(struct nlb *m, struct nlmsghdr *h)
{
	if (h)
		h->nlmsg_len = (uint32_t)(m->b + m->len - (char *)h);
}

static void attr(struct nlb *m, uint16_t type, const void *p, size_t n)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + n), .nla_type = type };

	put(m, &a, sizeof(a));
	if (n)
		put(m, p, n);
}

static void attr_str(struct nlb *m, uint16_t type, const char *s)
{
	attr(m, type, s, strlen(s) + 1);
}

static void attr_be32(struct nlb *m, uint16_t type, uint32_t v)
{
	v = htonl(v);
	attr(m, type, &v, sizeof(v));
}

static void attr_be16(struct nlb *m, uint16_t type, uint16_t v)
{
	v = htons(v);
	attr(m, type, &v, sizeof(v));
}

static void attr_be64(struct nlb *m, uint16_t type, uint64_t v)
{
	uint32_t w[2] = { htonl((uint32_t)(v >> 32)), htonl((uint32_t)v) };

	attr(m, type, w, sizeof(w));
}

static void nest_start(struct nlb *m, uint16_t type)
{
	if (m->depth >= 8) {
		m->bad = 1;
		return;
	}
	m->nest[m->depth++] = m->len;
	attr(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct nlb *m)
{
	struct nlattr *a;

	if (m->bad || m->depth <= 0)
		return;
	a = (struct nlattr *)(m->b + m->nest[--m->depth]);
	a->nla_len = (uint16_t)(m->len - m->nest[m->depth]);
}

static struct nlmsghdr *nft_start(struct nlb *m, uint16_t type, uint16_t flags, int family)
{
	struct nlmsghdr *h = msg_start(m, (uint16_t)((NFNL_SUBSYS_NFTABLES << 8) | type),
				       (uint16_t)(NLM_F_REQUEST | NLM_F_ACK | flags));
	struct nfgenmsg g = { .nfgen_family = (uint8_t)family, .version = NFNETLINK_V0 };

	put(m, &g, sizeof(g));
	return h;
}

static void batch(struct nlb *m, uint16_t type)
{
	struct nlmsghdr *h = msg_start(m, type, NLM_F_REQUEST);
	struct nfgenmsg g = { .nfgen_family = AF_UNSPEC, .version = NFNETLINK_V0,
			      .res_id = htons(NFNL_SUBSYS_NFTABLES) };

	put(m, &g, sizeof(g));
	msg_end(m, h);
}

/* one expression of a rule: name, then its attributes inside DATA */
static void expr_start(struct nlb *m, const char *name)
{
	nest_start(m, NFTA_LIST_ELEM);
	attr_str(m, NFTA_EXPR_NAME, name);
	nest_start(m, NFTA_EXPR_DATA);
}

static void expr_end(struct nlb *m)
{
	nest_end(m);
	nest_end(m);
}

static void data_value(struct nlb *m, uint16_t type, const void *p, size_t n)
{
	nest_start(m, type);
	attr(m, NFTA_DATA_VALUE, p, n);
	nest_end(m);
}

/* reg1 = the IPv4 destination masked to /8; != 127.0.0.0 */
static void expr_daddr_not_loopback(struct nlb *m)
{
	static const uint8_t mask[4] = { 255, 0, 0, 0 }, zero[4] = { 0 }, lo[4] = { 127, 0, 0, 0 };

	expr_start(m, "payload");
	attr_be32(m, NFTA_PAYLOAD_DREG, NFT_REG_1);
	attr_be32(m, NFTA_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
	attr_be32(m, NFTA_PAYLOAD_OFFSET, 16);
	attr_be32(m, NFTA_PAYLOAD_LEN, 4);
	expr_end(m);
	expr_start(m, "bitwise");
	attr_be32(m, NFTA_BITWISE_SREG, NFT_REG_1);
	attr_be32(m, NFTA_BITWISE_DREG, NFT_REG_1);
	attr_be32(m, NFTA_BITWISE_LEN, 4);
	data_value(m, NFTA_BITWISE_MASK, mask, 4);
	data_value(m, NFTA_BITWISE_XOR, zero, 4);
	expr_end(m);
	expr_start(m, "cmp");
	attr_be32(m, NFTA_CMP_SREG, NFT_REG_1);
	attr_be32(m, NFTA_CMP_OP, NFT_CMP_NEQ);
	data_value(m, NFTA_CMP_DATA, lo, 4);
	expr_end(m);
}

static void chain(struct nlb *m, const char *name, const char *type, int hook, int prio)
{
	struct nlmsghdr *h = nft_start(m, NFT_MSG_NEWCHAIN, NLM_F_CREATE, NFPROTO_IPV4);

	attr_str(m, NFTA_CHAIN_TABLE, SRT_NETRULES_TABLE);
	attr_str(m, NFTA_CHAIN_NAME, name);
	nest_start(m, NFTA_CHAIN_HOOK);
	attr_be32(m, NFTA_HOOK_HOOKNUM, (uint32_t)hook);
	attr_be32(m, NFTA_HOOK_PRIORITY, (uint32_t)prio);
	nest_end(m);
	attr_be32(m, NFTA_CHAIN_POLICY, NF_ACCEPT);
	attr_str(m, NFTA_CHAIN_TYPE, type);
	msg_end(m, h);
}

static void rule_start(struct nlb *m, struct nlmsghdr **h, const char *chain_name)
{
	*h = nft_start(m, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND, NFPROTO_IPV4);
	attr_str(m, NFTA_RULE_TABLE, SRT_NETRULES_TABLE);
	attr_str(m, NFTA_RULE_CHAIN, chain_name);
	nest_start(m, NFTA_RULE_EXPRESSIONS);
}

static void build_nft(struct nlb *m, int port)
{
	struct nlmsghdr *h;
	uint8_t tcp = IPPROTO_TCP;
	uint16_t p = htons((uint16_t)port);

	batch(m, NFNL_MSG_BATCH_BEGIN);
	h = nft_start(m, NFT_MSG_NEWTABLE, NLM_F_CREATE, NFPROTO_IPV4);
	attr_str(m, NFTA_TABLE_NAME, SRT_NETRULES_TABLE);
	msg_end(m, h);
	chain(m, "nat-out", "nat", NF_INET_LOCAL_OUT, -100);
	chain(m, "filter-out", "filter", NF_INET_LOCAL_OUT, 0);

	/* meta l4proto tcp ip daddr & 255.0.0.0 != 127.0.0.0 redirect to :port */
	rule_start(m, &h, "nat-out");
	expr_start(m, "meta");
	attr_be32(m, NFTA_META_KEY, NFT_META_L4PROTO);
	attr_be32(m, NFTA_META_DREG, NFT_REG_1);
	expr_end(m);
	expr_start(m, "cmp");
	attr_be32(m, NFTA_CMP_SREG, NFT_REG_1);
	attr_be32(m, NFTA_CMP_OP, NFT_CMP_EQ);
	data_value(m, NFTA_CMP_DATA, &tcp, 1);
	expr_end(m);
	expr_daddr_not_loopback(m);
	expr_start(m, "immediate");
	attr_be32(m, NFTA_IMMEDIATE_DREG, NFT_REG_1);
	data_value(m, NFTA_IMMEDIATE_DATA, &p, 2);
	expr_end(m);
	expr_start(m, "redir");
	attr_be32(m, NFTA_REDIR_REG_PROTO_MIN, NFT_REG_1);
	expr_end(m);
	nest_end(m);
	msg_end(m, h);

	/* ip daddr & 255.0.0.0 != 127.0.0.0 limit rate N/second log group G:
	 * a rule of its own, since a packet over the limit must still meet
	 * the drop below */
	rule_start(m, &h, "filter-out");
	expr_daddr_not_loopback(m);
	expr_start(m, "limit");
	attr_be64(m, NFTA_LIMIT_RATE, SRT_NETRULES_LOG_RATE);
	attr_be64(m, NFTA_LIMIT_UNIT, 1);
	attr_be32(m, NFTA_LIMIT_BURST, SRT_NETRULES_LOG_RATE);
	attr_be32(m, NFTA_LIMIT_TYPE, NFT_LIMIT_PKTS);
	expr_end(m);
	expr_start(m, "log");
	attr_be16(m, NFTA_LOG_GROUP, SRT_NETRULES_LOG_GROUP);
	attr_be32(m, NFTA_LOG_SNAPLEN, SRT_NETRULES_LOG_SNAP);
	expr_end(m);
	nest_end(m);
	msg_end(m, h);

	/* ip daddr & 255.0.0.0 != 127.0.0.0 drop */
	rule_start(m, &h, "filter-out");
	expr_daddr_not_loopback(m);
	expr_start(m, "immediate");
	attr_be32(m, NFTA_IMMEDIATE_DREG, NFT_REG_VERDICT);
	nest_start(m, NFTA_IMMEDIATE_DATA);
	nest_start(m, NFTA_DATA_VERDICT);
	attr_be32(m, NFTA_VERDICT_CODE, NF_DROP);
	nest_end(m);
	nest_end(m);
	expr_end(m);
	nest_end(m);
	msg_end(m, h);
	batch(m, NFNL_MSG_BATCH_END);
}

static void build_route(struct nlb *m)
{
	struct nlmsghdr *h = msg_start(m, RTM_NEWROUTE,
				       NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	struct rtmsg r = { .rtm_family = AF_INET, .rtm_dst_len = 0, .rtm_table = RT_TABLE_MAIN,
			   .rtm_protocol = RTPROT_BOOT, .rtm_scope = RT_SCOPE_LINK,
			   .rtm_type = RTN_UNICAST };
	uint32_t oif = if_nametoindex("lo"), src = htonl(INADDR_LOOPBACK);

	put(m, &r, sizeof(r));
	attr(m, RTA_OIF, &oif, sizeof(oif));
	attr(m, RTA_PREFSRC, &src, sizeof(src));
	msg_end(m, h);
}

/* Send m on fd and read one ack per message that asked for one. 0, or
 * the first error (a positive errno). */
static int talk_on(int fd, struct nlb *m)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char rb[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	int err = 0, acks = 0;
	struct timeval tv = { 2, 0 }, none = { 0, 0 };

	if (m->bad)
		return ENOBUFS;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, m->b, m->len, 0, (struct sockaddr *)&sa, sizeof(sa)) != (ssize_t)m->len) {
		err = errno ? errno : EIO;
		goto out;
	}
	while (acks < m->nmsg && !err) {
		ssize_t n = recv(fd, rb, sizeof(rb), 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		for (h = (struct nlmsghdr *)rb; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != NLMSG_ERROR)
				continue;
			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
				err = EPROTO;
				break;
			}
			acks++;
			if (((struct nlmsgerr *)NLMSG_DATA(h))->error) {
				err = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
				break;
			}
		}
	}
out:
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
	return err;
}

/* The same on a fresh socket of `proto`. */
static int talk(struct nlb *m, int proto)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto), err;

	if (fd < 0)
		return errno;
	err = talk_on(fd, m);
	close(fd);
	return err;
}

int srt__netrules_log_open(char *why, size_t cap)
{
	static struct nlb m;
	struct nlmsghdr *h;
	struct nfgenmsg g = { .nfgen_family = AF_UNSPEC, .version = NFNETLINK_V0,
			      .res_id = htons(SRT_NETRULES_LOG_GROUP) };
	struct nfulnl_msg_config_cmd cmd = { .command = NFULNL_CFG_CMD_BIND };
	struct nfulnl_msg_config_mode mode = { .copy_range = htonl(SRT_NETRULES_LOG_SNAP),
					       .copy_mode = NFULNL_COPY_PACKET };
	/* each packet is handed over at once: the kernel's default holds up to
	 * 100 for up to a second, so a violation could arrive after the
	 * command ended (or, with a short run, never be read) */
	uint32_t qthresh = htonl(1);
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER), err;

	if (fd < 0) {
		snprintf(why, cap, "open a netfilter netlink socket for the log of dropped packets: %s",
			 strerror(errno));
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.seq = (uint32_t)time(NULL) + 200;
	h = msg_start(&m, (uint16_t)((NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_CONFIG),
		      NLM_F_REQUEST | NLM_F_ACK);
	put(&m, &g, sizeof(g));
	attr(&m, NFULA_CFG_CMD, &cmd, sizeof(cmd));
	attr(&m, NFULA_CFG_MODE, &mode, sizeof(mode));
	attr(&m, NFULA_CFG_QTHRESH, &qthresh, sizeof(qthresh));
	msg_end(&m, h);
	err = talk_on(fd, &m);
	if (err) {
		snprintf(why, cap, "bind the netlink log group %d for dropped packets: %s",
			 SRT_NETRULES_LOG_GROUP, strerror(err));
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		snprintf(why, cap, "the log of dropped packets: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int srt__netrules_log_read(int fd, struct srt__dropped *out, int max)
{
	char b[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n;
	int got = 0;

	n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR || errno == ENOBUFS ? 0 : -1;
	for (struct nlmsghdr *h = (struct nlmsghdr *)b; NLMSG_OK(h, (size_t)n) && got < max;
	     h = NLMSG_NEXT(h, n)) {
		size_t alen;
		struct nlattr *a;

		if (h->nlmsg_type != ((NFNL_SUBSYS_ULOG << 8) | NFULNL_MSG_PACKET) ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nfgenmsg)))
			continue;
		a = (struct nlattr *)((char *)NLMSG_DATA(h) + NLMSG_ALIGN(sizeof(struct nfgenmsg)));
		alen = h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct nfgenmsg)));
		while (alen >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= alen) {
			if ((a->nla_type & NLA_TYPE_MASK) == NFULA_PAYLOAD &&
			    srt__netrules_parse_ip((const uint8_t *)a + NLA_HDRLEN,
						   a->nla_len - NLA_HDRLEN, &out[got]) == 0) {
				got++;
				break;
			}
			if ((size_t)NLA_ALIGN(a->nla_len) >= alen)
				break;
			alen -= (size_t)NLA_ALIGN(a->nla_len);
			a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
		}
	}
	return got;
}

int srt__netrules_parse_ip(const uint8_t *p, size_t n, struct srt__dropped *d)
{
	size_t ihl;

	if (n < 20 || (p[0] >> 4) != 4)
		return -1;
	ihl = (size_t)(p[0] & 15) * 4;
	if (ihl < 20 || ihl > n)
		return -1;
	d->proto = p[9];
	memcpy(&d->daddr, p + 16, 4);
	d->dport = 0;
	/* a port only in the first fragment, and only when it is there */
	if ((d->proto == IPPROTO_UDP || d->proto == IPPROTO_TCP) &&
	    !(((p[6] & 0x1f) << 8) | p[7]) && n >= ihl + 4)
		d->dport = (uint16_t)(p[ihl + 2] << 8 | p[ihl + 3]);
	return 0;
}

int srt__netrules_install(int port, char *why, size_t cap)
{
	static struct nlb m;
	int err;

	if (port <= 0 || port > 65535) {
		snprintf(why, cap, "bad redirect port %d", port);
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.seq = (uint32_t)time(NULL);
	build_route(&m);
	err = talk(&m, NETLINK_ROUTE);
	if (err) {
		snprintf(why, cap, "add the default route over lo: %s", strerror(err));
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.seq = (uint32_t)time(NULL) + 100;
	build_nft(&m, port);
	err = talk(&m, NETLINK_NETFILTER);
	if (err) {
		snprintf(why, cap, "install the nftables redirect (table ip %s): %s",
			 SRT_NETRULES_TABLE, strerror(err));
		return -1;
	}
	return 0;
}
