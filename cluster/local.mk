# cluster/: bolt-cluster, which checks a cluster before a job runs on it (the
# hosts, which host is wired to which, every link's latency and bandwidth),
# and the check mode of bolt-hostd it talks to (cluster/agent.c).
bin_PROGRAMS += bolt-cluster
CLUSTER_AGENT = \
	cluster/agent.c cluster/agent.h \
	cluster/check_wire.c cluster/check_wire.h \
	cluster/hostinfo.c cluster/hostinfo.h \
	cluster/probe.c cluster/probe.h \
	cluster/probe_rdma.c cluster/rdma_probe.h
if HAVE_VERBS
CLUSTER_AGENT += cluster/hostinfo_rdma_verbs.c cluster/rdma_probe_verbs.c
CLUSTER_AGENT_LIBS = $(VERBS_LIBS)
else
CLUSTER_AGENT += cluster/hostinfo_rdma_none.c cluster/rdma_probe_none.c
CLUSTER_AGENT_LIBS =
endif
EXTRA_DIST += cluster/hostinfo_rdma_verbs.c cluster/hostinfo_rdma_none.c \
	cluster/rdma_probe_verbs.c cluster/rdma_probe_none.c
bolt_hostd_SOURCES += $(CLUSTER_AGENT)
bolt_hostd_LDADD += $(CLUSTER_AGENT_LIBS)
bolt_cluster_SOURCES = \
	cluster/bolt_cluster.c cluster/check.h \
	cluster/check_wire.c cluster/check_wire.h \
	cluster/remote.c cluster/remote.h \
	cluster/wiring.c cluster/wiring.h \
	cluster/rdma_paths.c cluster/rdma_paths.h \
	cluster/report.c cluster/report_json.c cluster/report.h \
	cluster/outfiles.c cluster/outfiles.h \
	launcher/rsh.c launcher/rsh.h launcher/pathsearch.c launcher/spawn.h \
	launcher/hostlist.c launcher/hostlist.h \
	launcher/chan.c launcher/chan.h launcher/chan_wire.c launcher/chan_wire.h
bolt_cluster_CFLAGS = $(AM_CFLAGS) $(CRYPTO_CFLAGS) $(JANSSON_CFLAGS)
bolt_cluster_LDADD = libboltcore.la $(CRYPTO_LIBS) $(JANSSON_LIBS)
