// SPDX-License-Identifier: GPL-2.0
/*
 * kfi_verbs.ko, C side: the RDMA devices. An ib_client keeps one
 * struct kfi_verbs_dev per RDMA device that can do fast registration
 * (FRWR), with its protection domain, from the client's add callback to its
 * remove callback (hot add and hot removal included). Domains reference
 * the device (kref); after removal the structure lives on, marked gone,
 * until the last domain lets go: opening anything on it fails with -ENODEV.
 *
 * Locking: kfi_verbs_devs_lock (mutex) protects the list of live devices.
 * Each device's @lock (rw_semaphore) protects @ib, @pd and @name: readers
 * use the ib_device only while holding it for read and seeing @ib non-NULL;
 * the remove callback takes it for write, so after it no reader is left on
 * the ib_device. Queue pairs are created and destroyed under it for read
 * (kfi_verbs_cm.c), each listed on the device's @conns under @conns_lock,
 * so the remove callback finds them all. Order: kfi_verbs_devs_lock, a
 * device's @lock, its @conns_lock. A device's @mr_lock (memory regions,
 * kfi_verbs_mr.c) is never taken inside @lock: it is held around rdma_cm
 * calls that take handler mutexes, inside which @lock is taken.
 */
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "verbs_sys.h"
#include "kfi_verbs_priv.h"

static_assert(KFI_VERBS_NAME_MAX == IB_DEVICE_NAME_MAX);

static DEFINE_MUTEX(kfi_verbs_devs_lock);
static LIST_HEAD(kfi_verbs_devs);

static void kfi_verbs_dev_free(struct kref *ref)
{
	struct kfi_verbs_dev *d = container_of(ref, struct kfi_verbs_dev, ref);

	put_device(d->dma);
	kfree(d);
}

/**
 * kfi_verbs_dev_dma() - The device a domain's consumers map memory for (the
 *	cxi extension's get_device): the RDMA device's DMA device, or for a
 *	device that maps virtually (rxe, siw) or through an IOMMU (which may
 *	merge a scatterlist's entries: the provider reads them by page) the
 *	toolkit's direct-mapped one.
 * @d: The device (referenced).
 *
 * Context: Any. Return: The device, valid while @d is referenced.
 */
struct device *kfi_verbs_dev_dma(struct kfi_verbs_dev *d)
{
	return d->dma ?: kfi_util_dma_device();
}

/**
 * kfi_verbs_dev_put() - Drop a reference taken by kfi_verbs_dev_get().
 * @dev: The device.
 *
 * Context: Any context that may free memory.
 */
void kfi_verbs_dev_put(struct kfi_verbs_dev *dev)
{
	kref_put(&dev->ref, kfi_verbs_dev_free);
}

/**
 * kfi_verbs_dev_iwarp() - Whether a device speaks iWARP (no immediate
 *	data: sends and writes carry no remote CQ data).
 * @dev: The device (referenced).
 *
 * Context: Process context (sleeps). Return: true for iWARP; false for
 * InfiniBand transports, and once the device is gone.
 */
bool kfi_verbs_dev_iwarp(struct kfi_verbs_dev *dev)
{
	bool iwarp = false;

	down_read(&dev->lock);
	if (dev->ib)
		iwarp = rdma_protocol_iwarp(dev->ib, rdma_start_port(dev->ib));
	up_read(&dev->lock);
	return iwarp;
}

/**
 * kfi_verbs_dev_atomics() - Whether a device does 64-bit atomics on its
 *	RC queue pairs (atomic_cap not IB_ATOMIC_NONE).
 * @dev: The device (referenced).
 *
 * Context: Process context (sleeps). Return: false also once it is gone.
 */
bool kfi_verbs_dev_atomics(struct kfi_verbs_dev *dev)
{
	bool atomics = false;

	down_read(&dev->lock);
	if (dev->ib)
		atomics = dev->ib->attrs.atomic_cap != IB_ATOMIC_NONE;
	up_read(&dev->lock);
	return atomics;
}

/**
 * kfi_verbs_route_ifindex() - The network device the caller's namespace
 *	reaches an address through: the device holding it when it is a
 *	local address (rdma_cm connects through that device's RDMA device),
 *	else the device the route to it leaves by.
 * @dst: The address.
 *
 * Context: Process context. Return: its interface index, or 0 (no
 * route, or a family other than IPv4/IPv6).
 */
int kfi_verbs_route_ifindex(const struct kfi_util_addr *dst)
{
	struct net *net = current->nsproxy->net_ns;
	struct net_device *nd;
	int ifindex = 0;

	if (dst->family == AF_INET) {
		__be32 a;
		struct rtable *rt;

		memcpy(&a, dst->addr, sizeof(a));
		rcu_read_lock();
		nd = __ip_dev_find(net, a, false);
		if (nd)
			ifindex = nd->ifindex;
		rcu_read_unlock();
		if (ifindex)
			return ifindex;
		rt = ip_route_output(net, a, 0, 0, 0, RT_SCOPE_UNIVERSE);
		if (IS_ERR(rt))
			return 0;
		ifindex = rt->dst.dev->ifindex;
		ip_rt_put(rt);
#if IS_ENABLED(CONFIG_IPV6)
	} else if (dst->family == AF_INET6) {
		struct flowi6 fl6 = { .flowi6_oif = dst->scope_id };
		struct dst_entry *d;

		memcpy(&fl6.daddr, dst->addr, sizeof(fl6.daddr));
		rcu_read_lock();
		nd = ipv6_dev_find(net, &fl6.daddr, NULL);
		if (nd)
			ifindex = nd->ifindex;
		rcu_read_unlock();
		if (ifindex)
			return ifindex;
		d = ip6_route_output(net, NULL, &fl6);
		if (!d->error && d->dev)
			ifindex = d->dev->ifindex;
		dst_release(d);
#endif
	}
	return ifindex;
}

/*
 * The network device of @port of @ib if it is in @net, referenced; NULL
 * otherwise. Called with the device's lock held for read.
 */
static struct net_device *kfi_verbs_port_netdev(struct ib_device *ib, u32 port,
						struct net *net)
{
	struct net_device *nd = ib_device_get_netdev(ib, port);

	if (nd && !net_eq(dev_net(nd), net)) {
		dev_put(nd);
		nd = NULL;
	}
	return nd;
}

/*
 * Fills @out for @port of the live device @d whose network device @nd is
 * in the caller's namespace. False if the port is not active (it could
 * not carry a connection). Called with @d's lock held for read.
 */
static bool kfi_verbs_port_fill(struct kfi_verbs_dev *d, u32 port,
				struct net_device *nd,
				struct kfi_verbs_port *out)
{
	const struct ib_device_attr *a = &d->ib->attrs;
	struct ib_port_attr pa;
	union ib_gid gid;

	if (ib_query_port(d->ib, port, &pa) || pa.state != IB_PORT_ACTIVE)
		return false;
	memset(out, 0, sizeof(*out));
	strscpy(out->dev_name, d->name, sizeof(out->dev_name));
	out->port = port;
	out->ifindex = nd->ifindex;
	out->iwarp = rdma_protocol_iwarp(d->ib, port);
	out->atomics = a->atomic_cap != IB_ATOMIC_NONE;
	if (!rdma_query_gid(d->ib, port, 0, &gid))
		out->gid_prefix = be64_to_cpu(gid.global.subnet_prefix);
	out->max_msg = pa.max_msg_sz;
	out->max_qp_wr = max(a->max_qp_wr, 0);
	out->max_send_sge = max(a->max_send_sge, 0);
	out->max_recv_sge = max(a->max_recv_sge, 0);
	out->max_cqe = max(a->max_cqe, 0);
	out->max_fr_pages = a->max_fast_reg_page_list_len;
	out->max_mr_size = a->max_mr_size;
	out->max_mr = max(a->max_mr, 0);
	out->max_qp = max(a->max_qp, 0);
	return true;
}

/**
 * kfi_verbs_ports() - List the active ports of the live RDMA devices whose
 *	network device is in the caller's network namespace.
 * @out: Array of at least @max entries.
 * @max: Capacity of @out.
 *
 * Devices in the order they were added, ports in number order.
 *
 * Context: Process context (sleeps). Return: number of entries written.
 */
int kfi_verbs_ports(struct kfi_verbs_port *out, int max)
{
	struct net *net = current->nsproxy->net_ns;
	struct kfi_verbs_dev *d;
	struct net_device *nd;
	u32 port;
	int n = 0;

	mutex_lock(&kfi_verbs_devs_lock);
	list_for_each_entry(d, &kfi_verbs_devs, node) {
		down_read(&d->lock);
		if (!d->ib)
			goto next;
		rdma_for_each_port(d->ib, port) {
			if (n == max)
				break;
			nd = kfi_verbs_port_netdev(d->ib, port, net);
			if (!nd)
				continue;
			if (kfi_verbs_port_fill(d, port, nd, &out[n]))
				n++;
			dev_put(nd);
		}
next:
		up_read(&d->lock);
	}
	mutex_unlock(&kfi_verbs_devs_lock);
	return n;
}

/**
 * kfi_verbs_dev_port() - What kfi_getinfo would list of one port of a
 *	device (a connection request's).
 * @d: The device.
 * @port: The port number.
 * @out: The port.
 *
 * Context: Process context (sleeps).
 * Return: 0; -ENODEV if the device went away, the port has no network
 * device or is not active.
 */
int kfi_verbs_dev_port(struct kfi_verbs_dev *d, u32 port,
		       struct kfi_verbs_port *out)
{
	struct net_device *nd = NULL;
	int ret = -ENODEV;

	/*
	 * Called from rdma_cm's handler (a connection request): the device's
	 * removal may hold the lock for write while siw's queue pair
	 * destruction waits for the very workqueue that handler runs on, so
	 * the request is refused rather than waiting.
	 */
	if (!down_read_trylock(&d->lock))
		return -ENODEV;
	if (d->ib && rdma_is_port_valid(d->ib, port))
		nd = ib_device_get_netdev(d->ib, port);
	if (nd && kfi_verbs_port_fill(d, port, nd, out))
		ret = 0;
	if (nd)
		dev_put(nd);
	up_read(&d->lock);
	return ret;
}

/**
 * kfi_verbs_dev_get() - Find a live RDMA device by name, one of whose ports
 *	has its network device in @net.
 * @name: The name (not NUL-terminated).
 * @len: Its length.
 * @net: The network namespace (a fabric's).
 *
 * Context: Process context (sleeps).
 * Return: The device, referenced (kfi_verbs_dev_put()), or NULL.
 */
struct kfi_verbs_dev *kfi_verbs_dev_get(const char *name, size_t len,
					void *net)
{
	struct kfi_verbs_dev *d, *found = NULL;
	struct net_device *nd;
	u32 port;

	if (len >= IB_DEVICE_NAME_MAX)
		return NULL;
	mutex_lock(&kfi_verbs_devs_lock);
	list_for_each_entry(d, &kfi_verbs_devs, node) {
		down_read(&d->lock);
		if (d->ib && strlen(d->name) == len &&
		    !memcmp(d->name, name, len)) {
			rdma_for_each_port(d->ib, port) {
				nd = kfi_verbs_port_netdev(d->ib, port, net);
				if (nd) {
					dev_put(nd);
					found = d;
					kref_get(&d->ref);
					break;
				}
			}
		}
		up_read(&d->lock);
		if (found)
			break;
	}
	mutex_unlock(&kfi_verbs_devs_lock);
	return found;
}

/**
 * kfi_verbs_dev_of() - The provider's record of a live RDMA device.
 * @ib: The device.
 *
 * Context: Process context (sleeps).
 * Return: The device, referenced (kfi_verbs_dev_put()), or NULL if it is
 * not tracked (no fast registration) or being removed.
 */
struct kfi_verbs_dev *kfi_verbs_dev_of(struct ib_device *ib)
{
	struct kfi_verbs_dev *d, *found = NULL;

	mutex_lock(&kfi_verbs_devs_lock);
	list_for_each_entry(d, &kfi_verbs_devs, node) {
		/* @ib is set before and cleared after the device is listed */
		if (d->ib == ib) {
			kref_get(&d->ref);
			found = d;
			break;
		}
	}
	mutex_unlock(&kfi_verbs_devs_lock);
	return found;
}

static struct ib_client kfi_verbs_client;

/*
 * A device appeared (or the client was registered while it existed).
 * Devices without fast registration are ignored: remote access to memory
 * is only ever granted through FRWR (never a global rkey).
 */
static int kfi_verbs_add(struct ib_device *ib)
{
	struct kfi_verbs_dev *d;

	if (!(ib->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		return -EOPNOTSUPP;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	kref_init(&d->ref);
	init_rwsem(&d->lock);
	mutex_init(&d->conns_lock);
	INIT_LIST_HEAD(&d->conns);
	mutex_init(&d->mr_lock);
	INIT_LIST_HEAD(&d->mrs);
	INIT_LIST_HEAD(&d->mr_free);
	d->mr_pages = min_t(u32, ib->attrs.max_fast_reg_page_list_len,
			    KFI_VERBS_MR_PAGES);
	d->pd = ib_alloc_pd(ib, 0);
	if (IS_ERR(d->pd)) {
		int ret = PTR_ERR(d->pd);

		kfree(d);
		return ret;
	}
	d->ib = ib;
	/*
	 * Consumers map KFI_SGL buffers for this device and pass the mapped
	 * entry count (kfilnd); the provider reads them by page, which is
	 * right only if mapping merges no entries: no IOMMU.
	 */
	if (!ib_uses_virt_dma(ib) && !device_iommu_mapped(ib->dma_device))
		d->dma = get_device(ib->dma_device);
	strscpy(d->name, dev_name(&ib->dev), sizeof(d->name));
	ib_set_client_data(ib, &kfi_verbs_client, d);
	mutex_lock(&kfi_verbs_devs_lock);
	list_add_tail(&d->node, &kfi_verbs_devs);
	mutex_unlock(&kfi_verbs_devs_lock);
	return 0;
}

/*
 * The device goes away (or the client is unregistered): from now on
 * nothing new opens on it and nobody touches the ib_device. Every ib
 * resource on it must be gone before the PD is freed: the queue pairs and
 * completion queues of connections are destroyed here (their owners see
 * their work requests flushed, then the connection's end), and so are the
 * memory regions and the registration channel (kfi_verbs_mr.c); domains
 * hold none but the shared PD. The rdma_cm ids go with rdma_cm's own removal,
 * which runs after this (clients are removed in reverse order of
 * registration) and reports DEVICE_REMOVAL to kfi_verbs_cm.c.
 */
static void kfi_verbs_remove(struct ib_device *ib, void *data)
{
	struct kfi_verbs_dev *d = data;

	mutex_lock(&kfi_verbs_devs_lock);
	list_del(&d->node);
	mutex_unlock(&kfi_verbs_devs_lock);
	/* outside @lock: it calls into rdma_cm (kfi_verbs_mr.c) */
	kfi_verbs_mrs_remove(d);
	down_write(&d->lock);
	kfi_verbs_conns_remove(d);
	ib_dealloc_pd(d->pd);
	d->pd = NULL;
	d->ib = NULL;
	up_write(&d->lock);
	kfi_verbs_dev_put(d);
}

static void kfi_verbs_rename(struct ib_device *ib, void *data)
{
	struct kfi_verbs_dev *d = data;

	down_write(&d->lock);
	strscpy(d->name, dev_name(&ib->dev), sizeof(d->name));
	up_write(&d->lock);
}

static struct ib_client kfi_verbs_client = {
	.name = "kfi_verbs",
	.add = kfi_verbs_add,
	.remove = kfi_verbs_remove,
	.rename = kfi_verbs_rename,
};

/**
 * kfi_verbs_client_register() - Start tracking RDMA devices (the add
 *	callback runs for every existing device before this returns).
 *
 * Context: Process context (module init). Return: 0 or a negative errno.
 */
int kfi_verbs_client_register(void)
{
	return ib_register_client(&kfi_verbs_client);
}

/**
 * kfi_verbs_client_unregister() - Stop tracking RDMA devices: the remove
 *	callback runs for every device before this returns.
 *
 * Context: Process context (module exit).
 */
void kfi_verbs_client_unregister(void)
{
	ib_unregister_client(&kfi_verbs_client);
}
