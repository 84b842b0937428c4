// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of the kfabric core, run when this module is loaded (after
 * kfabric.ko). They use the exported API only, with two fake providers,
 * "alpha" and "beta", registered by this module:
 *
 *   alpha[0]  MSG, SOCK_TCP, caps MSG|SEND|RECV, SOCKADDR_IN, domain "lo",
 *             THREAD_SAFE, mr_mode PROV_KEY, tx iov 4, rx size 64
 *   alpha[1]  RDM, SOCK_TCP, caps MSG|TAGGED|SEND|RECV, mode CONTEXT,
 *             domain "eth0", THREAD_DOMAIN, mr_mode 0
 *   beta[0]   MSG, RDMA_CM_IB_RC, caps MSG|RMA|SEND|RECV|READ|WRITE,
 *             SOCKADDR_IN6, domain "rxe0", THREAD_SAFE,
 *             mr_mode LOCAL|VIRT_ADDR|PROV_KEY, tx iov 16, rx size 256
 *
 * The fakes ignore the hints on purpose: the core must filter. new_hints()
 * gives hints whose mode accepts KFI_CONTEXT and KFI_LOCAL_MR (alpha[1] and
 * beta require them: a mode of 0 means "no mode supported").
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <kfabric.h>
#include <kfi_errno.h>
#include <kfi_prov.h>

#define V17 KFI_VERSION(1, 7)

struct fake_entry {
	enum kfi_ep_type type;
	u32 protocol;
	u64 caps, mode;
	u32 addr_format;
	const char *domain;
	enum kfi_threading threading;
	int mr_mode;
	size_t tx_iov, rx_size;
};

struct fake_prov {
	struct kfi_provider prov;
	const char *fabric_name;
	const struct fake_entry *entries;
	int n_entries;
	bool registered;
	/* behaviour switches and what the core passed in */
	int getinfo_ret, fabric_ret;
	atomic_t getinfo_calls, fabrics_open, closes;
	spinlock_t seen_lock;	/* protects the seen_* fields */
	u64 seen_flags;
	char seen_node[32], seen_service[32];
	u32 seen_version;
};

struct fake_fabric {
	struct kfid_fabric fab;
	struct fake_prov *owner;
};

static const struct fake_entry alpha_entries[] = {
	{ KFI_EP_MSG, KFI_PROTO_SOCK_TCP, KFI_MSG | KFI_SEND | KFI_RECV, 0,
	  KFI_SOCKADDR_IN, "lo", KFI_THREAD_SAFE, KFI_MR_PROV_KEY, 4, 64 },
	{ KFI_EP_RDM, KFI_PROTO_SOCK_TCP,
	  KFI_MSG | KFI_TAGGED | KFI_SEND | KFI_RECV, KFI_CONTEXT,
	  KFI_SOCKADDR_IN, "eth0", KFI_THREAD_DOMAIN, 0, 4, 64 },
};

static const struct fake_entry beta_entries[] = {
	{ KFI_EP_MSG, KFI_PROTO_RDMA_CM_IB_RC,
	  KFI_MSG | KFI_RMA | KFI_SEND | KFI_RECV | KFI_READ | KFI_WRITE, 0,
	  KFI_SOCKADDR_IN6, "rxe0", KFI_THREAD_SAFE,
	  KFI_MR_LOCAL | KFI_MR_VIRT_ADDR | KFI_MR_PROV_KEY, 16, 256 },
};

static struct fake_prov alpha, beta, kfish;

static int fake_close(struct kfid *fid)
{
	struct fake_fabric *f = container_of(fid, struct fake_fabric, fab.fid);

	atomic_dec(&f->owner->fabrics_open);
	atomic_inc(&f->owner->closes);
	kfree(f);
	return 0;
}

static int fake_bind(struct kfid *fid, struct kfid *bfid, uint64_t flags)
{
	return -KFI_ENOSYS;
}

static int fake_control(struct kfid *fid, int command, void *arg)
{
	return -KFI_ENOSYS;
}

static int fake_ops_open(struct kfid *fid, const char *name, uint64_t flags,
			 void **ops, void *context)
{
	return -KFI_ENOSYS;
}

static struct kfi_ops fake_fid_ops = {
	.size = sizeof(struct kfi_ops),
	.close = fake_close,
	.bind = fake_bind,
	.control = fake_control,
	.ops_open = fake_ops_open,
};

static int fake_domain(struct kfid_fabric *fabric, struct kfi_info *info,
		       struct kfid_domain **dom, void *context)
{
	return -KFI_ENOSYS;
}

static int fake_pep(struct kfid_fabric *fabric, struct kfi_info *info,
		    struct kfid_pep **pep, void *context)
{
	return -KFI_ENOSYS;
}

static int fake_eq_open(struct kfid_fabric *fabric, struct kfi_eq_attr *attr,
			struct kfid_eq **eq, kfi_event_handler handler,
			void *context)
{
	return -KFI_ENOSYS;
}

static int fake_wait_open(struct kfid_fabric *fabric,
			  struct kfi_wait_attr *attr, struct kfid_wait **waitset)
{
	return -KFI_ENOSYS;
}

static struct kfi_ops_fabric fake_fabric_ops = {
	.size = sizeof(struct kfi_ops_fabric),
	.domain = fake_domain,
	.passive_ep = fake_pep,
	.eq_open = fake_eq_open,
	.wait_open = fake_wait_open,
};

static struct kfi_info *fake_build(struct fake_prov *p,
				   const struct fake_entry *e)
{
	struct kfi_info *i = kfi_allocinfo();

	if (!i)
		return NULL;
	i->caps = e->caps;
	i->mode = e->mode;
	i->addr_format = e->addr_format;
	i->ep_attr->type = e->type;
	i->ep_attr->protocol = e->protocol;
	i->ep_attr->max_msg_size = 1 << 20;
	i->tx_attr->caps = e->caps;
	i->tx_attr->iov_limit = e->tx_iov;
	i->tx_attr->size = 128;
	i->rx_attr->caps = e->caps;
	i->rx_attr->size = e->rx_size;
	i->rx_attr->iov_limit = 4;
	i->domain_attr->name = kstrdup(e->domain, GFP_KERNEL);
	i->domain_attr->threading = e->threading;
	i->domain_attr->mr_mode = e->mr_mode;
	i->fabric_attr->name = kstrdup(p->fabric_name, GFP_KERNEL);
	/* prov_name deliberately left NULL: the core stamps it */
	if (!i->domain_attr->name || !i->fabric_attr->name) {
		kfi_freeinfo(i);
		return NULL;
	}
	return i;
}

static int fake_getinfo(struct fake_prov *p, uint32_t version,
			const char *node, const char *service, uint64_t flags,
			struct kfi_info **info)
{
	struct kfi_info *head = NULL, **tail = &head;
	int n;

	atomic_inc(&p->getinfo_calls);
	spin_lock(&p->seen_lock);
	p->seen_version = version;
	p->seen_flags = flags;
	strscpy(p->seen_node, node ? node : "", sizeof(p->seen_node));
	strscpy(p->seen_service, service ? service : "",
		sizeof(p->seen_service));
	spin_unlock(&p->seen_lock);
	if (p->getinfo_ret)
		return p->getinfo_ret;
	for (n = 0; n < p->n_entries; n++) {
		*tail = fake_build(p, &p->entries[n]);
		if (!*tail) {
			kfi_freeinfo(head);
			return -ENOMEM;
		}
		tail = &(*tail)->next;
	}
	*info = head;
	return 0;
}

static int fake_fabric_open(struct fake_prov *p, struct kfi_fabric_attr *attr,
			    struct kfid_fabric **fabric, void *context)
{
	struct fake_fabric *f;

	if (p->fabric_ret)
		return p->fabric_ret;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->owner = p;
	f->fab.fid.fclass = KFI_CLASS_FABRIC;
	f->fab.fid.context = context;
	f->fab.fid.ops = &fake_fid_ops;
	f->fab.ops = &fake_fabric_ops;
	f->fab.api_version = V17;
	atomic_inc(&p->fabrics_open);
	*fabric = &f->fab;
	return 0;
}

#define FAKE_PROVIDER_FNS(x)						\
static int x##_getinfo(uint32_t version, const char *node,		\
		       const char *service, uint64_t flags,		\
		       struct kfi_info *hints, struct kfi_info **info)	\
{									\
	return fake_getinfo(&(x), version, node, service, flags, info);\
}									\
static int x##_fabric(struct kfi_fabric_attr *attr,			\
		      struct kfid_fabric **fabric, void *context)	\
{									\
	return fake_fabric_open(&(x), attr, fabric, context);		\
}
FAKE_PROVIDER_FNS(alpha)
FAKE_PROVIDER_FNS(beta)

static void fake_reset(struct fake_prov *p, const char *name,
		       const char *fabric_name,
		       int (*gi)(uint32_t, const char *, const char *,
				 uint64_t, struct kfi_info *,
				 struct kfi_info **),
		       int (*fab)(struct kfi_fabric_attr *,
				  struct kfid_fabric **, void *),
		       const struct fake_entry *entries, int n)
{
	memset(p, 0, sizeof(*p));
	spin_lock_init(&p->seen_lock);
	p->prov.version = KFI_VERSION(1, 0);
	p->prov.kfi_version = V17;
	p->prov.name = name;
	p->prov.kgetinfo = gi;
	p->prov.kfabric = fab;
	p->fabric_name = fabric_name;
	p->entries = entries;
	p->n_entries = n;
}

static int fakes_init(struct kunit *test)
{
	fake_reset(&alpha, "alpha", "alpha-fab", alpha_getinfo, alpha_fabric,
		   alpha_entries, ARRAY_SIZE(alpha_entries));
	fake_reset(&beta, "beta", "beta-fab", beta_getinfo, beta_fabric,
		   beta_entries, ARRAY_SIZE(beta_entries));
	if (kfi_provider_register(&alpha.prov))
		return -EINVAL;
	alpha.registered = true;
	if (kfi_provider_register(&beta.prov)) {
		kfi_provider_deregister(&alpha.prov);
		alpha.registered = false;
		return -EINVAL;
	}
	beta.registered = true;
	return 0;
}

static void fakes_exit(struct kunit *test)
{
	if (alpha.registered)
		kfi_provider_deregister(&alpha.prov);
	if (beta.registered)
		kfi_provider_deregister(&beta.prov);
	if (kfish.registered)
		kfi_provider_deregister(&kfish.prov);
	alpha.registered = beta.registered = kfish.registered = false;
}

static int count_list(struct kfi_info *i)
{
	int n = 0;

	for (; i; i = i->next)
		n++;
	return n;
}

/* kfi_getinfo with hints: number of entries, or the negative errno. */
static int getinfo_count(struct kfi_info *hints)
{
	struct kfi_info *list = NULL;
	int ret = kfi_getinfo(V17, NULL, NULL, 0, hints, &list);

	if (ret)
		return list ? -EFAULT : ret; /* failure must not leave a list */
	ret = count_list(list);
	kfi_freeinfo(list);
	return ret;
}

static struct kfi_info *new_hints(struct kunit *test)
{
	struct kfi_info *h = kfi_allocinfo();

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->mode = KFI_CONTEXT | KFI_LOCAL_MR;
	return h;
}

static void set_str(struct kunit *test, char **field, const char *s)
{
	kfree(*field);
	*field = kstrdup(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, *field);
}

/* ---------------------------------------------------------------- registry */

static void registry_two_providers_by_name(struct kunit *test)
{
	struct kfi_fabric_attr attr = { .prov_name = "beta" };
	struct kfid_fabric *fab = NULL;
	struct fake_fabric *f;
	int ctx;

	KUNIT_ASSERT_EQ(test, kfi_fabric(&attr, &fab, &ctx), 0);
	KUNIT_ASSERT_NOT_NULL(test, fab);
	f = container_of(fab, struct fake_fabric, fab);
	KUNIT_EXPECT_PTR_EQ(test, f->owner, &beta);
	KUNIT_EXPECT_PTR_EQ(test, fab->fid.context, (void *)&ctx);
	KUNIT_EXPECT_EQ(test, atomic_read(&beta.fabrics_open), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.fabrics_open), 0);
	KUNIT_EXPECT_EQ(test, kfi_close(&fab->fid), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&beta.closes), 1);

	attr.prov_name = "alpha";
	KUNIT_ASSERT_EQ(test, kfi_fabric(&attr, &fab, NULL), 0);
	f = container_of(fab, struct fake_fabric, fab);
	KUNIT_EXPECT_PTR_EQ(test, f->owner, &alpha);
	/* the provider's other ops still work through the core's wrapper */
	KUNIT_EXPECT_EQ(test, fab->fid.ops->bind(&fab->fid, NULL, 0),
			-KFI_ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_close(&fab->fid), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.closes), 1);
}

static void registry_unknown_name(struct kunit *test)
{
	struct kfi_fabric_attr attr = { .prov_name = "gamma" };
	struct kfid_fabric *fab = NULL;
	struct kfi_info *h = new_hints(test);

	/* never another provider: an error */
	KUNIT_EXPECT_EQ(test, kfi_fabric(&attr, &fab, NULL), -ENODEV);
	KUNIT_EXPECT_NULL(test, fab);
	attr.prov_name = "alph";
	KUNIT_EXPECT_EQ(test, kfi_fabric(&attr, &fab, NULL), -ENODEV);
	attr.prov_name = NULL;
	KUNIT_EXPECT_EQ(test, kfi_fabric(&attr, &fab, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_fabric(NULL, &fab, NULL), -EINVAL);
	attr.prov_name = "alpha";
	KUNIT_EXPECT_EQ(test, kfi_fabric(&attr, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.fabrics_open) + atomic_read(&beta.fabrics_open), 0);

	set_str(test, &h->fabric_attr->prov_name, "gamma");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.getinfo_calls) + atomic_read(&beta.getinfo_calls), 0);
	kfi_freeinfo(h);
}

static void registry_rejects_bad_providers(struct kunit *test)
{
	struct fake_prov dup;

	KUNIT_EXPECT_EQ(test, kfi_provider_register(NULL), -EINVAL);
	/* same structure twice, and another structure with a taken name */
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&alpha.prov), -EEXIST);
	fake_reset(&dup, "alpha", "x", alpha_getinfo, alpha_fabric, NULL, 0);
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&dup.prov), -EEXIST);

	fake_reset(&dup, NULL, "x", alpha_getinfo, alpha_fabric, NULL, 0);
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&dup.prov), -EINVAL);
	fake_reset(&dup, "", "x", alpha_getinfo, alpha_fabric, NULL, 0);
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&dup.prov), -EINVAL);
	fake_reset(&dup, "delta", "x", NULL, alpha_fabric, NULL, 0);
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&dup.prov), -EINVAL);
	fake_reset(&dup, "delta", "x", alpha_getinfo, NULL, NULL, 0);
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&dup.prov), -EINVAL);
	fake_reset(&dup, "delta", "x", alpha_getinfo, alpha_fabric, NULL, 0);
	dup.prov.kfi_version = KFI_VERSION(2, 0);
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&dup.prov), -ENOSYS);
	dup.prov.kfi_version = KFI_VERSION(1, 8);
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&dup.prov), -ENOSYS);
	/* an older minor version is fine */
	dup.prov.kfi_version = KFI_VERSION(1, 5);
	KUNIT_EXPECT_EQ(test, kfi_provider_register(&dup.prov), 0);
	KUNIT_EXPECT_EQ(test, kfi_provider_deregister(&dup.prov), 0);

	KUNIT_EXPECT_EQ(test, kfi_provider_deregister(&dup.prov), -ENODATA);
	KUNIT_EXPECT_EQ(test, kfi_provider_deregister(NULL), -EINVAL);
}

static void registry_fabric_pins_module(struct kunit *test)
{
	struct kfi_fabric_attr attr = { .prov_name = "alpha" };
	struct kfid_fabric *fab;
	int before = module_refcount(THIS_MODULE);

	KUNIT_ASSERT_EQ(test, kfi_fabric(&attr, &fab, NULL), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), before + 1);
	KUNIT_EXPECT_EQ(test, kfi_close(&fab->fid), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), before);

	/* a provider that fails to open leaves nothing pinned */
	alpha.fabric_ret = -ENOMEM;
	KUNIT_EXPECT_EQ(test, kfi_fabric(&attr, &fab, NULL), -ENOMEM);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), before);
}

struct dereg_ctx {
	struct kfi_provider *prov;
	int ret;
	struct completion done;
};

static int dereg_thread(void *arg)
{
	struct dereg_ctx *c = arg;

	c->ret = kfi_provider_deregister(c->prov);
	complete(&c->done);
	return 0;
}

static void registry_deregister_waits_for_fabric(struct kunit *test)
{
	struct kfi_fabric_attr attr = { .prov_name = "alpha" };
	struct kfi_info *h = new_hints(test);
	struct dereg_ctx c = { .prov = &alpha.prov, .ret = 1 };
	struct task_struct *t;
	struct kfid_fabric *fab;

	KUNIT_ASSERT_EQ(test, kfi_fabric(&attr, &fab, NULL), 0);
	init_completion(&c.done);
	t = kthread_run(dereg_thread, &c, "kfi_dereg");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	alpha.registered = false;
	/* unlisted at once, but the call cannot return while a fabric lives */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&c.done,
							  msecs_to_jiffies(300)),
			0UL);
	set_str(test, &h->fabric_attr->prov_name, "alpha");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	KUNIT_EXPECT_EQ(test, kfi_fabric(&attr, &fab, NULL) == 0, false);
	KUNIT_EXPECT_EQ(test, kfi_close(&fab->fid), 0);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&c.done, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, c.ret, 0);
	/* beta is untouched */
	KUNIT_EXPECT_EQ(test, getinfo_count(NULL), 1);
	kfi_freeinfo(h);
}

struct stress_ctx {
	atomic_t stop;
	atomic_t errors;
	atomic_t rounds;
	struct completion done;
};

/* Readers: kfi_getinfo and kfi_fabric/kfi_close in a loop. */
static int stress_reader(void *arg)
{
	struct stress_ctx *c = arg;
	struct kfi_fabric_attr attr = { .prov_name = "alpha" };
	struct kfid_fabric *fab;
	int n;

	while (!atomic_read(&c->stop)) {
		n = getinfo_count(NULL);
		/*
		 * alpha (2) and beta (1) always; gamma, answering with
		 * alpha's callbacks (2 more), comes and goes.
		 */
		if (n != 3 && n != 5)
			atomic_inc(&c->errors);
		if (kfi_fabric(&attr, &fab, NULL) || kfi_close(&fab->fid))
			atomic_inc(&c->errors);
		atomic_inc(&c->rounds);
		cond_resched();
	}
	complete(&c->done);
	return 0;
}

static void registry_concurrent_register_and_getinfo(struct kunit *test)
{
	struct stress_ctx c;
	struct fake_prov *gamma;
	struct task_struct *t[3];
	int i, n, rounds = 200;

	gamma = kunit_kzalloc(test, sizeof(*gamma), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, gamma);
	atomic_set(&c.stop, 0);
	atomic_set(&c.errors, 0);
	atomic_set(&c.rounds, 0);
	init_completion(&c.done);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		t[i] = kthread_run(stress_reader, &c, "kfi_stress%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t[i]));
	}
	for (n = 0; n < rounds; n++) {
		fake_reset(gamma, "gamma", "gamma-fab", alpha_getinfo,
			   alpha_fabric, NULL, 0);
		KUNIT_EXPECT_EQ(test, kfi_provider_register(&gamma->prov), 0);
		usleep_range(50, 100);
		KUNIT_EXPECT_EQ(test, kfi_provider_deregister(&gamma->prov), 0);
	}
	atomic_set(&c.stop, 1);
	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&c.done,
								  30 * HZ),
				0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.errors), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&c.rounds), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.fabrics_open), 0);
}

static struct kunit_case registry_cases[] = {
	KUNIT_CASE(registry_two_providers_by_name),
	KUNIT_CASE(registry_unknown_name),
	KUNIT_CASE(registry_rejects_bad_providers),
	KUNIT_CASE(registry_fabric_pins_module),
	KUNIT_CASE(registry_deregister_waits_for_fabric),
	KUNIT_CASE_SLOW(registry_concurrent_register_and_getinfo),
	{}
};

static struct kunit_suite registry_suite = {
	.name = "kfabric_registry",
	.init = fakes_init,
	.exit = fakes_exit,
	.test_cases = registry_cases,
};

/* ----------------------------------------------------------------- getinfo */

static void getinfo_all_ranked(struct kunit *test)
{
	struct kfi_info *list = NULL, *i;

	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, NULL, &list), 0);
	KUNIT_ASSERT_EQ(test, count_list(list), 3);
	/* RDMA first, then alpha's entries in alpha's order */
	i = list;
	KUNIT_EXPECT_STREQ(test, i->fabric_attr->prov_name, "beta");
	KUNIT_EXPECT_EQ(test, i->ep_attr->protocol, (u32)KFI_PROTO_RDMA_CM_IB_RC);
	i = i->next;
	KUNIT_EXPECT_STREQ(test, i->fabric_attr->prov_name, "alpha");
	KUNIT_EXPECT_EQ(test, i->ep_attr->type, KFI_EP_MSG);
	i = i->next;
	KUNIT_EXPECT_STREQ(test, i->fabric_attr->prov_name, "alpha");
	KUNIT_EXPECT_EQ(test, i->ep_attr->type, KFI_EP_RDM);
	for (i = list; i; i = i->next)
		KUNIT_EXPECT_EQ(test, i->fabric_attr->api_version, (u32)V17);
	kfi_freeinfo(list);
}

static void getinfo_hint_caps_mode(struct kunit *test)
{
	struct kfi_info *h = new_hints(test);

	h->caps = KFI_MSG;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 3);
	h->caps = KFI_TAGGED;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	h->caps = KFI_RMA | KFI_READ;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	h->caps = 0;
	/* the caller can live with CONTEXT and LOCAL_MR: every entry */
	h->mode = KFI_CONTEXT | KFI_LOCAL_MR;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 3);
	/* not with CONTEXT: alpha[1] requires it */
	h->mode = KFI_RX_CQ_DATA | KFI_LOCAL_MR;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 2);
	/* beta's MR_LOCAL requires LOCAL_MR unless mr_mode accepts MR_LOCAL */
	h->mode = KFI_CONTEXT;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 2);
	h->domain_attr->mr_mode = KFI_MR_LOCAL;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 3);
	/* mode 0: no mode supported, only alpha[0] requires none */
	h->domain_attr->mr_mode = 0;
	h->mode = 0;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	kfi_freeinfo(h);
}

static void getinfo_hint_ep_addr(struct kunit *test)
{
	struct kfi_info *h = new_hints(test);

	h->ep_attr->type = KFI_EP_RDM;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	h->ep_attr->type = KFI_EP_MSG;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 2);
	h->ep_attr->type = KFI_EP_DGRAM;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	h->ep_attr->type = KFI_EP_UNSPEC;
	h->ep_attr->protocol = KFI_PROTO_SOCK_TCP;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 2);
	h->ep_attr->protocol = 0;
	h->ep_attr->max_msg_size = 2 << 20;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	h->ep_attr->max_msg_size = 0;
	h->addr_format = KFI_SOCKADDR_IN6;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	/* an IPv6 entry serves an IPv4 hint (libfabric), not the reverse */
	h->addr_format = KFI_SOCKADDR_IN;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 3);
	/* KFI_SOCKADDR: any socket address family */
	h->addr_format = KFI_SOCKADDR;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 3);
	kfi_freeinfo(h);
}

static void getinfo_hint_names(struct kunit *test)
{
	struct kfi_info *h = new_hints(test);

	set_str(test, &h->fabric_attr->prov_name, "beta");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	/* only the named provider is asked */
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.getinfo_calls), 0);
	set_str(test, &h->fabric_attr->prov_name, "alpha");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 2);
	kfree(h->fabric_attr->prov_name);
	h->fabric_attr->prov_name = NULL;
	set_str(test, &h->fabric_attr->name, "alpha-fab");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 2);
	set_str(test, &h->fabric_attr->name, "nope");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	kfree(h->fabric_attr->name);
	h->fabric_attr->name = NULL;
	set_str(test, &h->domain_attr->name, "eth0");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	set_str(test, &h->domain_attr->name, "rxe0");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	kfi_freeinfo(h);
}

static void getinfo_hint_domain_attrs(struct kunit *test)
{
	struct kfi_info *h = new_hints(test);

	/* THREAD_SAFE asked: alpha[1] offers only THREAD_DOMAIN */
	h->domain_attr->threading = KFI_THREAD_SAFE;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 2);
	/* ENDPOINT asks for more parallelism than alpha[1]'s DOMAIN */
	h->domain_attr->threading = KFI_THREAD_ENDPOINT;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 2);
	h->domain_attr->threading = KFI_THREAD_DOMAIN;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 3);
	h->domain_attr->threading = 0;
	/* not an RMA target: the target MR modes are not required */
	h->domain_attr->mr_mode = KFI_MR_LOCAL;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 3);
	/* an RMA target (beta only has RMA) must accept them */
	h->caps = KFI_RMA;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	h->domain_attr->mr_mode = KFI_MR_LOCAL | KFI_MR_VIRT_ADDR |
				  KFI_MR_PROV_KEY;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	/* RM_DISABLED asked: the fakes' RM_UNSPEC is below it, not served */
	h->caps = 0;
	h->domain_attr->resource_mgmt = KFI_RM_DISABLED;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	kfi_freeinfo(h);
}

static void getinfo_hint_tx_rx(struct kunit *test)
{
	struct kfi_info *h = new_hints(test);

	h->tx_attr->iov_limit = 8;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	h->tx_attr->iov_limit = 4;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 3);
	h->tx_attr->caps = KFI_TAGGED;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	h->tx_attr->caps = 0;
	h->rx_attr->size = 128;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), 1);
	h->rx_attr->size = 1024;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	kfi_freeinfo(h);
}

static void getinfo_bad_input(struct kunit *test)
{
	struct kfi_info *list = (void *)1;

	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, NULL, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, NULL, 1ULL << 3, NULL,
					  &list), -EINVAL);
	KUNIT_EXPECT_NULL(test, list);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(KFI_VERSION(2, 0), NULL, NULL, 0,
					  NULL, &list), -ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(KFI_VERSION(1, 8), NULL, NULL, 0,
					  NULL, &list), -ENOSYS);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, "localhost", "7471",
					  KFI_NUMERICHOST, NULL, &list),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(V17, NULL, "7471", KFI_NUMERICHOST,
					  NULL, &list), -EINVAL);
	/* nothing reached a provider */
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.getinfo_calls) + atomic_read(&beta.getinfo_calls), 0);
	/* an older API version is served */
	KUNIT_EXPECT_EQ(test, kfi_getinfo(KFI_VERSION(1, 5), NULL, NULL, 0,
					  NULL, &list), 0);
	KUNIT_EXPECT_EQ(test, alpha.seen_version, (u32)KFI_VERSION(1, 5));
	kfi_freeinfo(list);
}

static void getinfo_passes_arguments(struct kunit *test)
{
	struct kfi_info *list = NULL;

	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, "::1", "7471",
					  KFI_SOURCE | KFI_NUMERICHOST, NULL,
					  &list), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.getinfo_calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&beta.getinfo_calls), 1);
	KUNIT_EXPECT_EQ(test, alpha.seen_flags, KFI_SOURCE | KFI_NUMERICHOST);
	KUNIT_EXPECT_STREQ(test, alpha.seen_node, "::1");
	KUNIT_EXPECT_STREQ(test, beta.seen_service, "7471");
	kfi_freeinfo(list);
}

static void getinfo_provider_errors(struct kunit *test)
{
	struct kfi_info *h = new_hints(test);

	/* one provider failing does not hide the other's entries */
	alpha.getinfo_ret = -EIO;
	KUNIT_EXPECT_EQ(test, getinfo_count(NULL), 1);
	/* asked alone, its error is returned */
	set_str(test, &h->fabric_attr->prov_name, "alpha");
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -EIO);
	/* a provider with no match is not an error */
	alpha.getinfo_ret = -ENODATA;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	beta.getinfo_ret = -ENODATA;
	KUNIT_EXPECT_EQ(test, getinfo_count(NULL), -ENODATA);
	kfi_freeinfo(h);
}

static void getinfo_no_match_no_provider(struct kunit *test)
{
	struct kfi_info *h = new_hints(test);

	h->caps = KFI_ATOMIC;
	KUNIT_EXPECT_EQ(test, getinfo_count(h), -ENODATA);
	kfi_freeinfo(h);
	fakes_exit(test);
	KUNIT_EXPECT_EQ(test, getinfo_count(NULL), -ENODATA);
}

static void getinfo_result_opens_fabric(struct kunit *test)
{
	struct kfi_info *list = NULL, *dup;
	struct kfid_fabric *fab;

	KUNIT_ASSERT_EQ(test, kfi_getinfo(V17, NULL, NULL, 0, NULL, &list), 0);
	dup = kfi_dupinfo(list->next);
	KUNIT_ASSERT_NOT_NULL(test, dup);
	kfi_freeinfo(list);
	KUNIT_ASSERT_EQ(test, kfi_fabric(dup->fabric_attr, &fab, NULL), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.fabrics_open), 1);
	KUNIT_EXPECT_EQ(test, kfi_close(&fab->fid), 0);
	kfi_freeinfo(dup);
}

static void getinfo_version_zero_is_any(struct kunit *test)
{
	struct kfi_info *list = NULL, *i;
	struct kfi_fabric_attr attr = { .prov_name = "alpha" };
	struct kfid_fabric *fab = NULL;

	KUNIT_ASSERT_EQ(test, kfi_getinfo(0, NULL, NULL, 0, NULL, &list), 0);
	KUNIT_EXPECT_EQ(test, count_list(list), 3);
	/* asked at the version they were built for: ours */
	KUNIT_EXPECT_EQ(test, alpha.seen_version, (u32)V17);
	KUNIT_EXPECT_EQ(test, beta.seen_version, (u32)V17);
	for (i = list; i; i = i->next)
		KUNIT_EXPECT_EQ(test, i->fabric_attr->api_version, (u32)V17);
	kfi_freeinfo(list);

	/* only newer than ours is refused, before any provider is asked */
	atomic_set(&alpha.getinfo_calls, 0);
	list = (void *)1;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(KFI_VERSION(1, 8), NULL, NULL, 0,
					  NULL, &list), -ENOSYS);
	KUNIT_EXPECT_NULL(test, list);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(KFI_VERSION(2, 0), NULL, NULL, 0,
					  NULL, &list), -ENOSYS);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.getinfo_calls), 0);
	KUNIT_EXPECT_EQ(test, kfi_getinfo(KFI_VERSION(1, 0), NULL, NULL, 0,
					  NULL, &list), 0);
	KUNIT_EXPECT_EQ(test, alpha.seen_version, (u32)KFI_VERSION(1, 0));
	KUNIT_EXPECT_EQ(test, list->fabric_attr->api_version,
			(u32)KFI_VERSION(1, 0));
	kfi_freeinfo(list);

	/* kfi_fabric: same rule; 0 opens the fabric at our version */
	KUNIT_ASSERT_EQ(test, kfi_fabric(&attr, &fab, NULL), 0);
	KUNIT_EXPECT_EQ(test, fab->api_version, (u32)V17);
	KUNIT_EXPECT_EQ(test, kfi_close(&fab->fid), 0);
	attr.api_version = KFI_VERSION(1, 5);
	KUNIT_ASSERT_EQ(test, kfi_fabric(&attr, &fab, NULL), 0);
	KUNIT_EXPECT_EQ(test, fab->api_version, (u32)KFI_VERSION(1, 5));
	KUNIT_EXPECT_EQ(test, kfi_close(&fab->fid), 0);
	attr.api_version = KFI_VERSION(1, 8);
	KUNIT_EXPECT_EQ(test, kfi_fabric(&attr, &fab, NULL), -ENOSYS);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.fabrics_open), 0);
}

static void getinfo_older_provider(struct kunit *test)
{
	struct kfi_info *list = NULL;

	/* alpha built for 1.5: not asked at 1.7, asked at 1.5 for "any" */
	KUNIT_ASSERT_EQ(test, kfi_provider_deregister(&alpha.prov), 0);
	alpha.prov.kfi_version = KFI_VERSION(1, 5);
	KUNIT_ASSERT_EQ(test, kfi_provider_register(&alpha.prov), 0);
	KUNIT_EXPECT_EQ(test, getinfo_count(NULL), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&alpha.getinfo_calls), 0);
	KUNIT_ASSERT_EQ(test, kfi_getinfo(0, NULL, NULL, 0, NULL, &list), 0);
	KUNIT_EXPECT_EQ(test, count_list(list), 3);
	KUNIT_EXPECT_EQ(test, alpha.seen_version, (u32)KFI_VERSION(1, 5));
	/* beta (RDMA) first, then alpha's entries, stamped with 1.5 */
	KUNIT_EXPECT_EQ(test, list->fabric_attr->api_version, (u32)V17);
	KUNIT_EXPECT_EQ(test, list->next->fabric_attr->api_version,
			(u32)KFI_VERSION(1, 5));
	kfi_freeinfo(list);
}

/*
 * A provider offering what Lustre 2.15's kfilnd asks for (kfilnd_dom.c): it
 * fills in its own capabilities and limits and, like the other fakes,
 * ignores the hints.
 */
static const struct fake_entry kfish_entry = {
	KFI_EP_MSG, KFI_PROTO_SOCK_TCP,
	KFI_MSG | KFI_RMA | KFI_SEND | KFI_RECV | KFI_READ | KFI_WRITE |
	KFI_REMOTE_READ | KFI_REMOTE_WRITE | KFI_MULTI_RECV | KFI_RMA_EVENT |
	KFI_REMOTE_COMM | KFI_LOCAL_COMM, 0,
	KFI_SOCKADDR_IN, "eth0", KFI_THREAD_SAFE, 0, 256, 1024,
};

static int kfish_getinfo(uint32_t version, const char *node,
			 const char *service, uint64_t flags,
			 struct kfi_info *hints, struct kfi_info **info)
{
	struct kfi_info *i;
	int ret = fake_getinfo(&kfish, version, node, service, flags, info);

	if (ret)
		return ret;
	i = *info;
	i->tx_attr->op_flags = KFI_COMPLETION | KFI_TRANSMIT_COMPLETE;
	i->tx_attr->rma_iov_limit = 256;
	i->rx_attr->op_flags = KFI_COMPLETION | KFI_MULTI_RECV;
	i->rx_attr->iov_limit = 256;
	i->ep_attr->auth_key_size = sizeof(u32);
	i->domain_attr->resource_mgmt = KFI_RM_ENABLED;
	i->domain_attr->control_progress = KFI_PROGRESS_AUTO;
	i->domain_attr->data_progress = KFI_PROGRESS_AUTO;
	i->domain_attr->mr_key_size = 8;
	i->domain_attr->mr_iov_limit = 256;
	i->domain_attr->mr_cnt = 65535;
	i->domain_attr->cq_cnt = 64;
	i->domain_attr->caps = KFI_LOCAL_COMM | KFI_REMOTE_COMM;
	i->fabric_attr->prov_version = KFI_VERSION(1, 0);
	return 0;
}

static int kfish_fabric(struct kfi_fabric_attr *attr,
			struct kfid_fabric **fabric, void *context)
{
	return fake_fabric_open(&kfish, attr, fabric, context);
}

static void getinfo_kfilnd_215_hints(struct kunit *test)
{
	struct kfi_info *h = kfi_allocinfo(), *info = NULL, *dup;
	const u32 key = 255, dkey = 0xabcd;
	const u32 tc = KFI_TC_BULK_DATA;

	KUNIT_ASSERT_NOT_NULL(test, h);
	fake_reset(&kfish, "kfish", "kfish-fab", kfish_getinfo, kfish_fabric,
		   &kfish_entry, 1);
	KUNIT_ASSERT_EQ(test, kfi_provider_register(&kfish.prov), 0);
	kfish.registered = true;

	h->caps = KFI_MSG | KFI_RMA | KFI_SEND | KFI_RECV | KFI_READ |
		  KFI_WRITE | KFI_REMOTE_READ | KFI_REMOTE_WRITE |
		  KFI_MULTI_RECV | KFI_RMA_EVENT | KFI_REMOTE_COMM;
	h->fabric_attr->prov_version = KFI_VERSION(1, 0);
	h->domain_attr->mr_iov_limit = 256;
	h->domain_attr->mr_cnt = 1024;
	h->domain_attr->mr_key_size = 4;
	h->domain_attr->resource_mgmt = KFI_RM_DISABLED;
	h->domain_attr->tclass = tc;
	h->domain_attr->auth_key = kmemdup(&dkey, sizeof(dkey), GFP_KERNEL);
	h->domain_attr->auth_key_size = sizeof(dkey);
	h->ep_attr->max_msg_size = 1 << 20;
	h->ep_attr->auth_key = kmemdup(&key, sizeof(key), GFP_KERNEL);
	h->ep_attr->auth_key_size = sizeof(key);
	h->rx_attr->op_flags = KFI_COMPLETION | KFI_MULTI_RECV;
	h->rx_attr->iov_limit = 256;
	h->tx_attr->op_flags = KFI_COMPLETION;
	h->tx_attr->iov_limit = 256;
	h->tx_attr->rma_iov_limit = 256;
	h->tx_attr->tclass = tc;
	KUNIT_ASSERT_NOT_NULL(test, h->ep_attr->auth_key);
	KUNIT_ASSERT_NOT_NULL(test, h->domain_attr->auth_key);

	KUNIT_ASSERT_EQ(test, kfi_getinfo(0, "eth0", "1", KFI_SOURCE, h,
					  &info), 0);
	/* alpha and beta lack RMA or MULTI_RECV: kfish's entry only */
	KUNIT_ASSERT_EQ(test, count_list(info), 1);
	KUNIT_EXPECT_STREQ(test, info->fabric_attr->prov_name, "kfish");
	KUNIT_EXPECT_EQ(test, kfish.seen_version, (u32)V17);
	KUNIT_EXPECT_EQ(test, kfish.seen_flags, KFI_SOURCE);
	KUNIT_EXPECT_EQ(test, info->fabric_attr->api_version, (u32)V17);
	KUNIT_EXPECT_EQ(test, info->fabric_attr->prov_version,
			(u32)KFI_VERSION(1, 0));
	/* the keys are copies: other pointers, same bytes, same sizes */
	KUNIT_ASSERT_NOT_NULL(test, info->ep_attr->auth_key);
	KUNIT_EXPECT_PTR_NE(test, (void *)info->ep_attr->auth_key,
			    (void *)h->ep_attr->auth_key);
	KUNIT_EXPECT_EQ(test, info->ep_attr->auth_key_size, sizeof(key));
	KUNIT_EXPECT_EQ(test, memcmp(info->ep_attr->auth_key, &key,
				     sizeof(key)), 0);
	KUNIT_ASSERT_NOT_NULL(test, info->domain_attr->auth_key);
	KUNIT_EXPECT_PTR_NE(test, (void *)info->domain_attr->auth_key,
			    (void *)h->domain_attr->auth_key);
	KUNIT_EXPECT_EQ(test, info->domain_attr->auth_key_size, sizeof(dkey));
	KUNIT_EXPECT_EQ(test, memcmp(info->domain_attr->auth_key, &dkey,
				     sizeof(dkey)), 0);
	/* carried hint fields; the provider's own where the hint is a limit */
	KUNIT_EXPECT_EQ(test, info->tx_attr->tclass, tc);
	KUNIT_EXPECT_EQ(test, info->domain_attr->tclass, tc);
	KUNIT_EXPECT_EQ(test, info->tx_attr->op_flags, KFI_COMPLETION);
	KUNIT_EXPECT_EQ(test, info->rx_attr->op_flags,
			KFI_COMPLETION | KFI_MULTI_RECV);
	KUNIT_EXPECT_EQ(test, info->domain_attr->resource_mgmt,
			KFI_RM_ENABLED);
	KUNIT_EXPECT_EQ(test, info->domain_attr->mr_key_size, (size_t)8);
	KUNIT_EXPECT_EQ(test, info->caps, h->caps);
	/* a dup copies the keys again */
	dup = kfi_dupinfo(info);
	KUNIT_ASSERT_NOT_NULL(test, dup);
	KUNIT_EXPECT_PTR_NE(test, (void *)dup->ep_attr->auth_key,
			    (void *)info->ep_attr->auth_key);
	KUNIT_EXPECT_EQ(test, memcmp(dup->ep_attr->auth_key, &key,
				     sizeof(key)), 0);
	/* each list frees its own keys once (KASAN checks) */
	kfi_freeinfo(info);
	kfi_freeinfo(dup);
	/* the hints are the caller's and untouched */
	KUNIT_EXPECT_EQ(test, memcmp(h->ep_attr->auth_key, &key,
				     sizeof(key)), 0);

	/* an auth key size the provider does not use: no entry */
	h->ep_attr->auth_key_size = 8;
	info = (void *)1;
	KUNIT_EXPECT_EQ(test, kfi_getinfo(0, "eth0", "1", KFI_SOURCE, h,
					  &info), -ENODATA);
	KUNIT_EXPECT_NULL(test, info);
	h->ep_attr->auth_key_size = sizeof(key);
	kfi_freeinfo(h);
	KUNIT_EXPECT_EQ(test, kfi_provider_deregister(&kfish.prov), 0);
	kfish.registered = false;
}

static struct kunit_case getinfo_cases[] = {
	KUNIT_CASE(getinfo_all_ranked),
	KUNIT_CASE(getinfo_hint_caps_mode),
	KUNIT_CASE(getinfo_hint_ep_addr),
	KUNIT_CASE(getinfo_hint_names),
	KUNIT_CASE(getinfo_hint_domain_attrs),
	KUNIT_CASE(getinfo_hint_tx_rx),
	KUNIT_CASE(getinfo_bad_input),
	KUNIT_CASE(getinfo_passes_arguments),
	KUNIT_CASE(getinfo_provider_errors),
	KUNIT_CASE(getinfo_no_match_no_provider),
	KUNIT_CASE(getinfo_result_opens_fabric),
	KUNIT_CASE(getinfo_version_zero_is_any),
	KUNIT_CASE(getinfo_older_provider),
	KUNIT_CASE(getinfo_kfilnd_215_hints),
	{}
};

static struct kunit_suite getinfo_suite = {
	.name = "kfabric_getinfo",
	.init = fakes_init,
	.exit = fakes_exit,
	.test_cases = getinfo_cases,
};

/* -------------------------------------------------------------------- info */

static void info_alloc_all_attrs(struct kunit *test)
{
	struct kfi_info *i = kfi_allocinfo();

	KUNIT_ASSERT_NOT_NULL(test, i);
	KUNIT_EXPECT_NULL(test, i->next);
	KUNIT_EXPECT_NOT_NULL(test, i->tx_attr);
	KUNIT_EXPECT_NOT_NULL(test, i->rx_attr);
	KUNIT_EXPECT_NOT_NULL(test, i->ep_attr);
	KUNIT_EXPECT_NOT_NULL(test, i->domain_attr);
	KUNIT_EXPECT_NOT_NULL(test, i->fabric_attr);
	KUNIT_EXPECT_EQ(test, i->caps, 0ULL);
	KUNIT_EXPECT_EQ(test, i->domain_attr->threading, KFI_THREAD_UNSPEC);
	KUNIT_EXPECT_NULL(test, i->fabric_attr->prov_name);
	kfi_freeinfo(i);
}

static void info_dup_deep_copy(struct kunit *test)
{
	struct kfi_info *src = kfi_allocinfo(), *d, *other = kfi_allocinfo();
	static const u8 key[5] = { 1, 2, 3, 4, 5 };
	u8 addr[16] = { 2, 0, 0x1d, 0x2f, 127, 0, 0, 1 };

	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, other);
	src->next = other;
	src->caps = KFI_MSG | KFI_TAGGED;
	src->src_addr = kmemdup(addr, sizeof(addr), GFP_KERNEL);
	src->src_addrlen = sizeof(addr);
	src->dest_addr = kmemdup(addr, 8, GFP_KERNEL);
	src->dest_addrlen = 8;
	src->ep_attr->auth_key = kmemdup(key, sizeof(key), GFP_KERNEL);
	src->ep_attr->auth_key_size = sizeof(key);
	src->domain_attr->auth_key = kmemdup(key, 3, GFP_KERNEL);
	src->domain_attr->auth_key_size = 3;
	set_str(test, &src->domain_attr->name, "rxe0");
	set_str(test, &src->fabric_attr->name, "fab");
	set_str(test, &src->fabric_attr->prov_name, "verbs");
	src->tx_attr->iov_limit = 256;

	d = kfi_dupinfo(src);
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_EXPECT_NULL(test, d->next);
	KUNIT_EXPECT_EQ(test, d->caps, src->caps);
	KUNIT_EXPECT_PTR_NE(test, d->src_addr, src->src_addr);
	KUNIT_EXPECT_EQ(test, d->src_addrlen, sizeof(addr));
	KUNIT_EXPECT_EQ(test, memcmp(d->src_addr, addr, sizeof(addr)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d->dest_addr, addr, 8), 0);
	KUNIT_EXPECT_PTR_NE(test, d->tx_attr, src->tx_attr);
	KUNIT_EXPECT_EQ(test, d->tx_attr->iov_limit, (size_t)256);
	KUNIT_EXPECT_PTR_NE(test, (void *)d->ep_attr->auth_key,
			    (void *)src->ep_attr->auth_key);
	KUNIT_EXPECT_EQ(test, memcmp(d->ep_attr->auth_key, key, 5), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d->domain_attr->auth_key, key, 3), 0);
	KUNIT_EXPECT_PTR_NE(test, d->domain_attr->name, src->domain_attr->name);
	KUNIT_EXPECT_STREQ(test, d->domain_attr->name, "rxe0");
	KUNIT_EXPECT_STREQ(test, d->fabric_attr->name, "fab");
	KUNIT_EXPECT_STREQ(test, d->fabric_attr->prov_name, "verbs");
	/* the copy is independent */
	d->fabric_attr->name[0] = 'X';
	KUNIT_EXPECT_STREQ(test, src->fabric_attr->name, "fab");
	kfi_freeinfo(d);
	kfi_freeinfo(src); /* frees `other` too */
}

static void info_dup_keeps_nulls(struct kunit *test)
{
	struct kfi_info *src = kfi_allocinfo(), *d;

	KUNIT_ASSERT_NOT_NULL(test, src);
	kfree(src->tx_attr);
	src->tx_attr = NULL;
	kfree(src->fabric_attr);
	src->fabric_attr = NULL;
	src->src_addrlen = 16; /* length without an address: not copied */
	d = kfi_dupinfo(src);
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_EXPECT_NULL(test, d->tx_attr);
	KUNIT_EXPECT_NULL(test, d->fabric_attr);
	KUNIT_EXPECT_NULL(test, d->src_addr);
	KUNIT_EXPECT_EQ(test, d->src_addrlen, (size_t)0);
	KUNIT_EXPECT_NOT_NULL(test, d->rx_attr);
	KUNIT_EXPECT_NULL(test, d->domain_attr->name);
	kfi_freeinfo(d);
	kfi_freeinfo(src);

	d = kfi_dupinfo(NULL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_EXPECT_NOT_NULL(test, d->ep_attr);
	kfi_freeinfo(d);
	kfi_freeinfo(NULL);
}

static void info_free_long_list(struct kunit *test)
{
	struct kfi_info *head = NULL, *i;
	int n;

	for (n = 0; n < 100; n++) {
		i = kfi_allocinfo();
		KUNIT_ASSERT_NOT_NULL(test, i);
		i->domain_attr->name = kstrdup("d", GFP_KERNEL);
		i->next = head;
		head = i;
	}
	KUNIT_EXPECT_EQ(test, count_list(head), 100);
	kfi_freeinfo(head);
}

static struct kunit_case info_cases[] = {
	KUNIT_CASE(info_alloc_all_attrs),
	KUNIT_CASE(info_dup_deep_copy),
	KUNIT_CASE(info_dup_keeps_nulls),
	KUNIT_CASE(info_free_long_list),
	{}
};

static struct kunit_suite info_suite = {
	.name = "kfabric_info",
	.test_cases = info_cases,
};

/* ----------------------------------------------------------------- strings */

static void strings_strerror(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, kfi_strerror(0), "Success");
	KUNIT_EXPECT_STREQ(test, kfi_strerror(-KFI_EINVAL), "Invalid argument");
	KUNIT_EXPECT_STREQ(test, kfi_strerror(KFI_EINVAL), "Invalid argument");
	KUNIT_EXPECT_STREQ(test, kfi_strerror(-KFI_EAGAIN),
			   "Resource temporarily unavailable");
	KUNIT_EXPECT_STREQ(test, kfi_strerror(-KFI_EAVAIL), "Error available");
	KUNIT_EXPECT_STREQ(test, kfi_strerror(-KFI_ETRUNC), "Truncation error");
	KUNIT_EXPECT_STREQ(test, kfi_strerror(-KFI_ECANCELED),
			   "Operation canceled");
	KUNIT_EXPECT_STREQ(test, kfi_strerror(-KFI_EOVERRUN),
			   "Queue has been overrun");
	KUNIT_EXPECT_STREQ(test, kfi_strerror(-100000), "Unknown error");
	/* constant text: the same pointer every time, nothing to overwrite */
	KUNIT_EXPECT_PTR_EQ(test, kfi_strerror(-KFI_ENOMEM),
			    kfi_strerror(-KFI_ENOMEM));
}

static void strings_tostr_values(struct kunit *test)
{
	u64 caps = KFI_MSG | KFI_RMA | KFI_TRIGGER;
	enum kfi_ep_type t = KFI_EP_RDM;
	char *s;

	s = kfi_tostr(&caps, KFI_TYPE_CAPS);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_STREQ(test, s, "[ KFI_MSG, KFI_RMA, KFI_TRIGGER ]");
	kfree(s);
	s = kfi_tostr(&t, KFI_TYPE_EP_TYPE);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_STREQ(test, s, "KFI_EP_RDM");
	kfree(s);
	s = kfi_tostr(NULL, KFI_TYPE_VERSION);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_STREQ(test, s, "1.7");
	kfree(s);
	KUNIT_EXPECT_NULL(test, kfi_tostr(NULL, KFI_TYPE_CAPS));
	KUNIT_EXPECT_NULL(test, kfi_tostr(&caps, (enum kfi_type)999));
}

static void strings_tostr_info(struct kunit *test)
{
	struct kfi_info *i = kfi_allocinfo();
	char *s;

	KUNIT_ASSERT_NOT_NULL(test, i);
	i->caps = KFI_MSG;
	i->ep_attr->type = KFI_EP_MSG;
	i->ep_attr->protocol = KFI_PROTO_SOCK_TCP;
	set_str(test, &i->fabric_attr->prov_name, "tcp");
	s = kfi_tostr(i, KFI_TYPE_INFO);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_NOT_NULL(test, strstr(s, "kfi_info:"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(s, "caps: [ KFI_MSG ]"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(s, "type: KFI_EP_MSG"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(s, "protocol: KFI_PROTO_SOCK_TCP"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(s, "prov_name: tcp"));
	kfree(s);
	s = kfi_tostr(i->fabric_attr, KFI_TYPE_FABRIC_ATTR);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_NOT_NULL(test, strstr(s, "kfi_fabric_attr:"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(s, "prov_name: tcp"));
	kfree(s);
	kfi_freeinfo(i);
}

static void strings_tostr_r_truncates(struct kunit *test)
{
	u64 caps = KFI_MSG | KFI_RMA | KFI_TAGGED | KFI_ATOMIC;
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	KUNIT_EXPECT_PTR_EQ(test, kfi_tostr_r(buf, sizeof(buf), &caps,
					      KFI_TYPE_CAPS), (char *)buf);
	KUNIT_EXPECT_EQ(test, strlen(buf), sizeof(buf) - 1);
	KUNIT_EXPECT_EQ(test, strncmp(buf, "[ KFI_MSG, KFI_", 15), 0);
	KUNIT_EXPECT_NULL(test, kfi_tostr_r(NULL, 16, &caps, KFI_TYPE_CAPS));
	KUNIT_EXPECT_NULL(test, kfi_tostr_r(buf, 0, &caps, KFI_TYPE_CAPS));
}

static void strings_version_macros(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, kfi_version(), (u32)KFI_VERSION(1, 7));
	KUNIT_EXPECT_EQ(test, kfi_version(),
			(u32)KFI_VERSION(KFI_MAJOR_VERSION, KFI_MINOR_VERSION));
	/* arguments are expressions: the macros must parenthesise them */
	KUNIT_EXPECT_EQ(test, KFI_VERSION(0 + 1, 3 + 4), 0x10007);
	KUNIT_EXPECT_EQ(test, KFI_MAJOR(0x10000 | 7), 1);
	KUNIT_EXPECT_EQ(test, KFI_MINOR(0x10000 | 7), 7);
	KUNIT_EXPECT_TRUE(test, KFI_VERSION_GE(KFI_VERSION(1, 7),
					       KFI_VERSION(1, 5)));
	KUNIT_EXPECT_FALSE(test, KFI_VERSION_LT(KFI_VERSION(1, 7),
						KFI_VERSION(1, 5)));
	KUNIT_EXPECT_TRUE(test, KFI_VERSION_LT(KFI_VERSION(0 + 1, 5),
					       KFI_VERSION(1, 7)));
}

static struct kunit_case strings_cases[] = {
	KUNIT_CASE(strings_strerror),
	KUNIT_CASE(strings_tostr_values),
	KUNIT_CASE(strings_tostr_info),
	KUNIT_CASE(strings_tostr_r_truncates),
	KUNIT_CASE(strings_version_macros),
	{}
};

static struct kunit_suite strings_suite = {
	.name = "kfabric_strings",
	.test_cases = strings_cases,
};

kunit_test_suites(&registry_suite, &getinfo_suite, &info_suite,
		  &strings_suite);

MODULE_DESCRIPTION("KUnit suites of the kfabric core");
MODULE_LICENSE("GPL");
