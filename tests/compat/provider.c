// SPDX-License-Identifier: GPL-2.0
/* Provider-style usage: every ops table filled with kfi_no_* stubs. */
#include <linux/module.h>
#include <linux/slab.h>
#include <kfi_enosys.h>
#include <kfi_trigger.h>
#include "kfitest.h"

static int t_close(struct kfid *fid)
{
	kfi_close_id(fid);
	return 0;
}

static struct kfi_ops t_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = t_close,
	.bind = kfi_no_bind,
	.control = kfi_no_control,
	.ops_open = kfi_no_ops_open,
};

static const struct kfi_ops_fabric t_fabric_ops = {
	.size = sizeof(struct kfi_ops_fabric),
	.domain = kfi_no_domain,
	.passive_ep = kfi_no_passive_ep,
	.eq_open = kfi_no_eq_open,
	.wait_open = kfi_no_wait_open,
};

static const struct kfi_ops_domain t_domain_ops = {
	.size = sizeof(struct kfi_ops_domain),
	.av_open = kfi_no_av_open,
	.cq_open = kfi_no_cq_open,
	.endpoint = kfi_no_endpoint,
	.scalable_ep = kfi_no_scalable_ep,
	.cntr_open = kfi_no_cntr_open,
	.poll_open = kfi_no_poll_open,
	.stx_ctx = kfi_no_stx_ctx,
	.srx_ctx = kfi_no_srx_ctx,
	.query_atomic = kfi_no_query_atomic,
};

static const struct kfi_ops_mr t_mr_ops = {
	.size = sizeof(struct kfi_ops_mr),
	.reg = kfi_no_mr_reg,
	.regv = kfi_no_mr_regv,
	.regbv = kfi_no_mr_regbv,
	.regattr = kfi_no_mr_regattr,
	.regsgl = kfi_no_mr_regsgl,
};

static const struct kfi_ops_av t_av_ops = {
	.size = sizeof(struct kfi_ops_av),
	.insert = kfi_no_av_insert,
	.insertsvc = kfi_no_av_insertsvc,
	.insertsym = kfi_no_av_insertsym,
	.remove = kfi_no_av_remove,
	.lookup = kfi_no_av_lookup,
	.straddr = NULL,
};

static const struct kfi_ops_ep t_ep_ops = {
	.size = sizeof(struct kfi_ops_ep),
	.cancel = kfi_no_cancel,
	.getopt = kfi_no_getopt,
	.setopt = kfi_no_setopt,
	.tx_ctx = kfi_no_tx_ctx,
	.rx_ctx = kfi_no_rx_ctx,
};

static const struct kfi_ops_cm t_cm_ops = {
	.size = sizeof(struct kfi_ops_cm),
	.setname = kfi_no_setname,
	.getname = kfi_no_getname,
	.getpeer = kfi_no_getpeer,
	.connect = kfi_no_connect,
	.listen = kfi_no_listen,
	.accept = kfi_no_accept,
	.reject = kfi_no_reject,
	.shutdown = kfi_no_shutdown,
	.join = kfi_no_join,
};

static const struct kfi_ops_msg t_msg_ops = {
	.size = sizeof(struct kfi_ops_msg),
	.recv = kfi_no_msg_recv,
	.recvv = kfi_no_msg_recvv,
	.recvbv = kfi_no_msg_recvbv,
	.recvmsg = kfi_no_msg_recvmsg,
	.send = kfi_no_msg_send,
	.sendv = kfi_no_msg_sendv,
	.sendbv = kfi_no_msg_sendbv,
	.sendmsg = kfi_no_msg_sendmsg,
	.inject = kfi_no_msg_inject,
	.senddata = kfi_no_msg_senddata,
	.injectdata = kfi_no_msg_injectdata,
	.recvsgl = kfi_no_msg_recvsgl,
	.sendsgl = kfi_no_msg_sendsgl,
};

static const struct kfi_ops_rma t_rma_ops = {
	.size = sizeof(struct kfi_ops_rma),
	.read = kfi_no_rma_read,
	.readv = kfi_no_rma_readv,
	.readbv = kfi_no_rma_readbv,
	.readmsg = kfi_no_rma_readmsg,
	.write = kfi_no_rma_write,
	.writev = kfi_no_rma_writev,
	.writebv = kfi_no_rma_writebv,
	.writemsg = kfi_no_rma_writemsg,
	.inject = kfi_no_rma_inject,
	.writedata = kfi_no_rma_writedata,
	.injectdata = kfi_no_rma_injectdata,
	.readsgl = kfi_no_rma_readsgl,
	.writesgl = kfi_no_rma_writesgl,
};

static const struct kfi_ops_tagged t_tagged_ops = {
	.size = sizeof(struct kfi_ops_tagged),
	.recv = kfi_no_tagged_recv,
	.recvv = kfi_no_tagged_recvv,
	.recvbv = kfi_no_tagged_recvbv,
	.recvmsg = kfi_no_tagged_recvmsg,
	.send = kfi_no_tagged_send,
	.sendv = kfi_no_tagged_sendv,
	.sendbv = kfi_no_tagged_sendbv,
	.sendmsg = kfi_no_tagged_sendmsg,
	.inject = kfi_no_tagged_inject,
	.senddata = kfi_no_tagged_senddata,
	.injectdata = kfi_no_tagged_injectdata,
	.recvsgl = kfi_no_tagged_recvsgl,
	.sendsgl = kfi_no_tagged_sendsgl,
};

static const struct kfi_ops_atomic t_atomic_ops = {
	.size = sizeof(struct kfi_ops_atomic),
	.write = kfi_no_atomic_write,
	.writev = kfi_no_atomic_writev,
	.writemsg = kfi_no_atomic_writemsg,
	.inject = kfi_no_atomic_inject,
	.readwrite = kfi_no_atomic_readwrite,
	.readwritev = kfi_no_atomic_readwritev,
	.readwritemsg = kfi_no_atomic_readwritemsg,
	.compwrite = kfi_no_atomic_compwrite,
	.compwritev = kfi_no_atomic_compwritev,
	.compwritemsg = kfi_no_atomic_compwritemsg,
	.writevalid = kfi_no_atomic_writevalid,
	.readwritevalid = kfi_no_atomic_readwritevalid,
	.compwritevalid = kfi_no_atomic_compwritevalid,
};

static const struct kfi_ops_eq t_eq_ops = {
	.size = sizeof(struct kfi_ops_eq),
	.write = kfi_no_eq_write,
	.sread = kfi_no_eq_sread,
};

static const struct kfi_ops_cq t_cq_ops = {
	.size = sizeof(struct kfi_ops_cq),
	.readfrom = kfi_no_cq_readfrom,
	.sread = kfi_no_cq_sread,
	.sreadfrom = kfi_no_cq_sreadfrom,
	.signal = kfi_no_cq_signal,
};

static const struct kfi_ops_cntr t_cntr_ops = {
	.size = sizeof(struct kfi_ops_cntr),
	.add = kfi_no_cntr_add,
	.set = kfi_no_cntr_set,
	.wait = kfi_no_cntr_wait,
	.adderr = kfi_no_cntr_adderr,
	.seterr = kfi_no_cntr_seterr,
};

static const struct kfi_ops_wait t_wait_ops = {
	.size = sizeof(struct kfi_ops_wait),
	.wait = kfi_no_wait,
};

static const struct kfi_ops_poll t_poll_ops = {
	.size = sizeof(struct kfi_ops_poll),
	.poll = kfi_no_poll,
	.poll_add = kfi_no_poll_add,
	.poll_del = kfi_no_poll_del,
};

static struct kfi_provider t_prov;

static int t_kfabric(struct kfi_fabric_attr *attr, struct kfid_fabric **fabric,
		     void *context)
{
	struct kfid_fabric *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -KFI_ENOMEM;
	kfi_init_id(&f->fid);
	kfi_ref_id(&f->fid);
	kfi_deref_id(&f->fid);
	f->fid.fclass = KFI_CLASS_FABRIC;
	f->fid.context = context;
	f->fid.ops = &t_fid_ops;
	f->ops = (struct kfi_ops_fabric *)&t_fabric_ops;
	f->api_version = t_prov.kfi_version;
	kfi_ref_provider(&t_prov);
	*fabric = f;
	(void)attr;
	return 0;
}

static int t_getinfo(uint32_t version, const char *node, const char *service,
		     uint64_t flags, struct kfi_info *hints,
		     struct kfi_info **info)
{
	(void)version; (void)node; (void)service; (void)flags; (void)hints;
	*info = NULL;
	return -ENODATA;
}

static struct kfi_provider t_prov = {
	.version = KFI_VERSION(0, 1),
	.kfi_version = KFI_VERSION(KFI_MAJOR_VERSION, KFI_MINOR_VERSION),
	.name = "test",
	.kgetinfo = t_getinfo,
	.kfabric = t_kfabric,
	.cleanup = NULL,
};

/* Referenced so that no static table is unused. */
const void *const kfitest_tables[] = {
	&t_domain_ops, &t_mr_ops, &t_av_ops, &t_ep_ops, &t_cm_ops, &t_msg_ops,
	&t_rma_ops, &t_tagged_ops, &t_atomic_ops, &t_eq_ops, &t_cq_ops,
	&t_cntr_ops, &t_wait_ops, &t_poll_ops,
};

int kfitest_provider_init(void)
{
	BUILD_BUG_ON(KFI_VERSION(1, 7) != 0x10007);
	BUILD_BUG_ON(!KFI_VERSION_GE(KFI_VERSION(1, 7), KFI_VERSION(1, 6)));
	BUILD_BUG_ON(KFI_VERSION_GE(KFI_VERSION(1, 7), KFI_VERSION(2, 0)));
	BUILD_BUG_ON(!KFI_VERSION_LT(KFI_VERSION(0, 9), KFI_VERSION(1, 0)));
	BUILD_BUG_ON(KFI_MAJOR(KFI_VERSION(1, 2) | 0) != 1);
	BUILD_BUG_ON(KFI_MINOR(KFI_VERSION(1, 2) + 1) != 3);
	return kfi_provider_register(&t_prov);
}

void kfitest_provider_exit(void)
{
	kfi_provider_deregister(&t_prov);
}
