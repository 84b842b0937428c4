// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/uio.h>
#include <linux/bvec.h>
#include <linux/scatterlist.h>
#include <kfabric.h>
#include <kfi_errno.h>
#include <kfi_eq.h>
#include <kfi_domain.h>
#include <kfi_endpoint.h>
#include <kfi_cm.h>
#include <kfi_rma.h>
#include <kfi_tagged.h>
#include <kfi_atomic.h>
#include <kfi_trigger.h>
#include <kfi_prov.h>
#include <kfi_enosys.h>
#include "kfitest.h"

/*
 * Every wrapper called once with its exact parameter types, in two halves:
 * one function with all of them has a stack frame over 1024 bytes under
 * KASAN (the wrappers' locals get a slot each).
 */
static noinline long kfitest_call_first(void)
{
	long acc = 0;

	acc += (long)kfi_tc_dscp_set((uint8_t)0);
	acc += (long)kfi_tc_dscp_get((uint32_t)0);
	acc += (long)kfi_close((struct kfid *)0);
	acc += (long)kfi_control((struct kfid *)0, (int)0, (void *)0);
	acc += (long)kfi_alias((struct kfid *)0, (struct kfid **)0, (uint64_t)0);
	acc += (long)kfi_open_ops((struct kfid *)0, (const char *)0, (uint64_t)0, (void **)0, (void *)0);
	acc += (long)kfi_wait((struct kfid_wait *)0, (int)0);
	acc += (long)kfi_poll((struct kfid_poll *)0, (void **)0, (int)0);
	acc += (long)kfi_poll_add((struct kfid_poll *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_poll_del((struct kfid_poll *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_eq_open((struct kfid_fabric *)0, (struct kfi_eq_attr *)0, (struct kfid_eq **)0, (kfi_event_handler)0, (void *)0);
	acc += (long)kfi_eq_read((struct kfid_eq *)0, (uint32_t *)0, (void *)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_eq_readerr((struct kfid_eq *)0, (struct kfi_eq_err_entry *)0, (uint64_t)0);
	acc += (long)kfi_eq_write((struct kfid_eq *)0, (uint32_t)0, (const void *)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_eq_sread((struct kfid_eq *)0, (uint32_t *)0, (void *)0, (size_t)0, (int)0, (uint64_t)0);
	acc += (long)kfi_eq_strerror((struct kfid_eq *)0, (int)0, (const void *)0, (char *)0, (size_t)0);
	acc += (long)kfi_cq_read((struct kfid_cq *)0, (void *)0, (size_t)0);
	acc += (long)kfi_cq_readfrom((struct kfid_cq *)0, (void *)0, (size_t)0, (kfi_addr_t *)0);
	acc += (long)kfi_cq_readerr((struct kfid_cq *)0, (struct kfi_cq_err_entry *)0, (uint64_t)0);
	acc += (long)kfi_cq_sread((struct kfid_cq *)0, (void *)0, (size_t)0, (const void *)0, (int)0);
	acc += (long)kfi_cq_sreadfrom((struct kfid_cq *)0, (void *)0, (size_t)0, (kfi_addr_t *)0, (const void *)0, (int)0);
	acc += (long)kfi_cq_signal((struct kfid_cq *)0);
	acc += (long)kfi_cq_strerror((struct kfid_cq *)0, (int)0, (const void *)0, (char *)0, (size_t)0);
	acc += (long)kfi_cntr_read((struct kfid_cntr *)0);
	acc += (long)kfi_cntr_readerr((struct kfid_cntr *)0);
	acc += (long)kfi_cntr_add((struct kfid_cntr *)0, (uint64_t)0);
	acc += (long)kfi_cntr_adderr((struct kfid_cntr *)0, (uint64_t)0);
	acc += (long)kfi_cntr_set((struct kfid_cntr *)0, (uint64_t)0);
	acc += (long)kfi_cntr_seterr((struct kfid_cntr *)0, (uint64_t)0);
	acc += (long)kfi_cntr_wait((struct kfid_cntr *)0, (uint64_t)0, (int)0);
	acc += (long)kfi_domain((struct kfid_fabric *)0, (struct kfi_info *)0, (struct kfid_domain **)0, (void *)0);
	acc += (long)kfi_domain_bind((struct kfid_domain *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_cq_open((struct kfid_domain *)0, (struct kfi_cq_attr *)0, (struct kfid_cq **)0, (kfi_comp_handler)0, (void *)0);
	acc += (long)kfi_cntr_open((struct kfid_domain *)0, (struct kfi_cntr_attr *)0, (struct kfid_cntr **)0, (void *)0);
	acc += (long)kfi_wait_open((struct kfid_fabric *)0, (struct kfi_wait_attr *)0, (struct kfid_wait **)0);
	acc += (long)kfi_poll_open((struct kfid_domain *)0, (struct kfi_poll_attr *)0, (struct kfid_poll **)0);
	acc += (long)kfi_mr_reg((struct kfid_domain *)0, (const void *)0, (size_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (struct kfid_mr **)0, (void *)0);
	acc += (long)kfi_mr_regv((struct kfid_domain *)0, (const struct kvec *)0, (size_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (struct kfid_mr **)0, (void *)0);
	acc += (long)kfi_mr_regbv((struct kfid_domain *)0, (const struct bio_vec *)0, (size_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (struct kfid_mr **)0, (void *)0);
	acc += (long)kfi_mr_regsgl((struct kfid_domain *)0, (const struct scatterlist *)0, (size_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (struct kfid_mr **)0, (void *)0);
	acc += (long)kfi_mr_regattr((struct kfid_domain *)0, (const struct kfi_mr_attr *)0, (uint64_t)0, (struct kfid_mr **)0);
	acc += (long)kfi_mr_desc((struct kfid_mr *)0);
	acc += (long)kfi_mr_key((struct kfid_mr *)0);
	acc += (long)kfi_mr_raw_attr((struct kfid_mr *)0, (uint64_t *)0, (uint8_t *)0, (size_t *)0, (uint64_t)0);
	acc += (long)kfi_mr_map_raw((struct kfid_domain *)0, (uint64_t)0, (uint8_t *)0, (size_t)0, (uint64_t *)0, (uint64_t)0);
	acc += (long)kfi_mr_unmap_key((struct kfid_domain *)0, (uint64_t)0);
	acc += (long)kfi_mr_bind((struct kfid_mr *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_mr_refresh((struct kfid_mr *)0, (const struct kvec *)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_mr_enable((struct kfid_mr *)0);
	acc += (long)kfi_av_open((struct kfid_domain *)0, (struct kfi_av_attr *)0, (struct kfid_av **)0, (void *)0);
	acc += (long)kfi_av_bind((struct kfid_av *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_av_insert((struct kfid_av *)0, (const void *)0, (size_t)0, (kfi_addr_t *)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_av_insertsvc((struct kfid_av *)0, (const char *)0, (const char *)0, (kfi_addr_t *)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_av_insertsym((struct kfid_av *)0, (const char *)0, (size_t)0, (const char *)0, (size_t)0, (kfi_addr_t *)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_av_remove((struct kfid_av *)0, (kfi_addr_t *)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_av_lookup((struct kfid_av *)0, (kfi_addr_t)0, (void *)0, (size_t *)0);
	acc += (long)kfi_av_straddr((struct kfid_av *)0, (const void *)0, (char *)0, (size_t *)0);
	acc += (long)kfi_rx_addr((kfi_addr_t)0, (int)0, (int)0);
	acc += (long)kfi_passive_ep((struct kfid_fabric *)0, (struct kfi_info *)0, (struct kfid_pep **)0, (void *)0);
	acc += (long)kfi_endpoint((struct kfid_domain *)0, (struct kfi_info *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_scalable_ep((struct kfid_domain *)0, (struct kfi_info *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_ep_bind((struct kfid_ep *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_pep_bind((struct kfid_pep *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_scalable_ep_bind((struct kfid_ep *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_enable((struct kfid_ep *)0);
	acc += (long)kfi_cancel((struct kfid *)0, (void *)0);
	acc += (long)kfi_setopt((struct kfid *)0, (int)0, (int)0, (const void *)0, (size_t)0);
	acc += (long)kfi_getopt((struct kfid *)0, (int)0, (int)0, (void *)0, (size_t *)0);
	acc += (long)kfi_ep_alias((struct kfid_ep *)0, (struct kfid_ep **)0, (uint64_t)0);
	acc += (long)kfi_tx_context((struct kfid_ep *)0, (int)0, (struct kfi_tx_attr *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_rx_context((struct kfid_ep *)0, (int)0, (struct kfi_rx_attr *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_stx_context((struct kfid_domain *)0, (struct kfi_tx_attr *)0, (struct kfid_stx **)0, (void *)0);
	acc += (long)kfi_srx_context((struct kfid_domain *)0, (struct kfi_rx_attr *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_recv((struct kfid_ep *)0, (void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_recvv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_recvbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_recvsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_recvmsg((struct kfid_ep *)0, (const struct kfi_msg *)0, (uint64_t)0);
	acc += (long)kfi_send((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_sendv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_sendbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_sendsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_sendmsg((struct kfid_ep *)0, (const struct kfi_msg *)0, (uint64_t)0);
	acc += (long)kfi_inject((struct kfid_ep *)0, (const void *)0, (size_t)0, (kfi_addr_t)0);
	acc += (long)kfi_senddata((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (uint64_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_injectdata((struct kfid_ep *)0, (const void *)0, (size_t)0, (uint64_t)0, (kfi_addr_t)0);
	acc += (long)kfi_setname((struct kfid *)0, (void *)0, (size_t)0);
	acc += (long)kfi_getname((struct kfid *)0, (void *)0, (size_t *)0);
	acc += (long)kfi_getpeer((struct kfid_ep *)0, (void *)0, (size_t *)0);
	acc += (long)kfi_listen((struct kfid_pep *)0);
	acc += (long)kfi_connect((struct kfid_ep *)0, (const void *)0, (const void *)0, (size_t)0);
	acc += (long)kfi_accept((struct kfid_ep *)0, (const void *)0, (size_t)0);
	acc += (long)kfi_reject((struct kfid_pep *)0, (kfid_t)0, (const void *)0, (size_t)0);
	acc += (long)kfi_shutdown((struct kfid_ep *)0, (uint64_t)0);
	acc += (long)kfi_join((struct kfid_ep *)0, (const void *)0, (uint64_t)0, (struct kfid_mc **)0, (void *)0);
	acc += (long)kfi_mc_addr((struct kfid_mc *)0);
	acc += (long)kfi_read((struct kfid_ep *)0, (void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_readv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_readbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_readsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_readmsg((struct kfid_ep *)0, (const struct kfi_msg_rma *)0, (uint64_t)0);
	acc += (long)kfi_write((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_writev((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_writebv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_writesgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_writemsg((struct kfid_ep *)0, (const struct kfi_msg_rma *)0, (uint64_t)0);
	acc += (long)kfi_inject_write((struct kfid_ep *)0, (const void *)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0);
	acc += (long)kfi_writedata((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (uint64_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_inject_writedata((struct kfid_ep *)0, (const void *)0, (size_t)0, (uint64_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0);
	acc += (long)kfi_trecv((struct kfid_ep *)0, (void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_trecvv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_trecvbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_trecvsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_trecvmsg((struct kfid_ep *)0, (const struct kfi_msg_tagged *)0, (uint64_t)0);
	acc += (long)kfi_tsend((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_tsendv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_tsendbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_tsendsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_tsendmsg((struct kfid_ep *)0, (const struct kfi_msg_tagged *)0, (uint64_t)0);
	acc += (long)kfi_tinject((struct kfid_ep *)0, (const void *)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0);
	acc += (long)kfi_tsenddata((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (uint64_t)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_tinjectdata((struct kfid_ep *)0, (const void *)0, (size_t)0, (uint64_t)0, (kfi_addr_t)0, (uint64_t)0);
	return acc;
}

static noinline long kfitest_call_second(void)
{
	long acc = 0;

	acc += (long)kfi_atomic((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_atomicv((struct kfid_ep *)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_atomicmsg((struct kfid_ep *)0, (const struct kfi_msg_atomic *)0, (uint64_t)0);
	acc += (long)kfi_inject_atomic((struct kfid_ep *)0, (const void *)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0);
	acc += (long)kfi_fetch_atomic((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (void *)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_fetch_atomicv((struct kfid_ep *)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (struct kfi_ioc *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_fetch_atomicmsg((struct kfid_ep *)0, (const struct kfi_msg_atomic *)0, (struct kfi_ioc *)0, (void **)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_compare_atomic((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (const void *)0, (void *)0, (void *)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_compare_atomicv((struct kfid_ep *)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (struct kfi_ioc *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_compare_atomicmsg((struct kfid_ep *)0, (const struct kfi_msg_atomic *)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (struct kfi_ioc *)0, (void **)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_atomicvalid((struct kfid_ep *)0, (enum kfi_datatype)0, (enum kfi_op)0, (size_t *)0);
	acc += (long)kfi_fetch_atomicvalid((struct kfid_ep *)0, (enum kfi_datatype)0, (enum kfi_op)0, (size_t *)0);
	acc += (long)kfi_compare_atomicvalid((struct kfid_ep *)0, (enum kfi_datatype)0, (enum kfi_op)0, (size_t *)0);
	acc += (long)kfi_query_atomic((struct kfid_domain *)0, (enum kfi_datatype)0, (enum kfi_op)0, (struct kfi_atomic_attr *)0, (uint64_t)0);
	kfi_ref_provider((struct kfi_provider *)0);
	kfi_deref_provider((struct kfi_provider *)0);
	kfi_init_id((struct kfid *)0);
	kfi_ref_id((struct kfid *)0);
	kfi_deref_id((struct kfid *)0);
	kfi_close_id((struct kfid *)0);
	acc += (long)kfi_no_bind((struct kfid *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_no_control((struct kfid *)0, (int)0, (void *)0);
	acc += (long)kfi_no_ops_open((struct kfid *)0, (const char *)0, (uint64_t)0, (void **)0, (void *)0);
	acc += (long)kfi_no_domain((struct kfid_fabric *)0, (struct kfi_info *)0, (struct kfid_domain **)0, (void *)0);
	acc += (long)kfi_no_passive_ep((struct kfid_fabric *)0, (struct kfi_info *)0, (struct kfid_pep **)0, (void *)0);
	acc += (long)kfi_no_eq_open((struct kfid_fabric *)0, (struct kfi_eq_attr *)0, (struct kfid_eq **)0, (kfi_event_handler)0, (void *)0);
	acc += (long)kfi_no_wait_open((struct kfid_fabric *)0, (struct kfi_wait_attr *)0, (struct kfid_wait **)0);
	acc += (long)kfi_no_av_open((struct kfid_domain *)0, (struct kfi_av_attr *)0, (struct kfid_av **)0, (void *)0);
	acc += (long)kfi_no_cq_open((struct kfid_domain *)0, (struct kfi_cq_attr *)0, (struct kfid_cq **)0, (kfi_comp_handler)0, (void *)0);
	acc += (long)kfi_no_endpoint((struct kfid_domain *)0, (struct kfi_info *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_no_scalable_ep((struct kfid_domain *)0, (struct kfi_info *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_no_cntr_open((struct kfid_domain *)0, (struct kfi_cntr_attr *)0, (struct kfid_cntr **)0, (void *)0);
	acc += (long)kfi_no_poll_open((struct kfid_domain *)0, (struct kfi_poll_attr *)0, (struct kfid_poll **)0);
	acc += (long)kfi_no_stx_ctx((struct kfid_domain *)0, (struct kfi_tx_attr *)0, (struct kfid_stx **)0, (void *)0);
	acc += (long)kfi_no_srx_ctx((struct kfid_domain *)0, (struct kfi_rx_attr *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_no_query_atomic((struct kfid_domain *)0, (enum kfi_datatype)0, (enum kfi_op)0, (struct kfi_atomic_attr *)0, (uint64_t)0);
	acc += (long)kfi_no_mr_reg((struct kfid *)0, (const void *)0, (size_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (struct kfid_mr **)0, (void *)0);
	acc += (long)kfi_no_mr_regv((struct kfid *)0, (const struct kvec *)0, (size_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (struct kfid_mr **)0, (void *)0);
	acc += (long)kfi_no_mr_regbv((struct kfid *)0, (const struct bio_vec *)0, (size_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (struct kfid_mr **)0, (void *)0);
	acc += (long)kfi_no_mr_regattr((struct kfid *)0, (const struct kfi_mr_attr *)0, (uint64_t)0, (struct kfid_mr **)0);
	acc += (long)kfi_no_mr_regsgl((struct kfid *)0, (const struct scatterlist *)0, (size_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (uint64_t)0, (struct kfid_mr **)0, (void *)0);
	acc += (long)kfi_no_av_insert((struct kfid_av *)0, (const void *)0, (size_t)0, (kfi_addr_t *)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_av_insertsvc((struct kfid_av *)0, (const char *)0, (const char *)0, (kfi_addr_t *)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_av_insertsym((struct kfid_av *)0, (const char *)0, (size_t)0, (const char *)0, (size_t)0, (kfi_addr_t *)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_av_remove((struct kfid_av *)0, (kfi_addr_t *)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_no_av_lookup((struct kfid_av *)0, (kfi_addr_t)0, (void *)0, (size_t *)0);
	acc += (long)kfi_no_cancel((kfid_t)0, (void *)0);
	acc += (long)kfi_no_getopt((kfid_t)0, (int)0, (int)0, (void *)0, (size_t *)0);
	acc += (long)kfi_no_setopt((kfid_t)0, (int)0, (int)0, (const void *)0, (size_t)0);
	acc += (long)kfi_no_tx_ctx((struct kfid_ep *)0, (int)0, (struct kfi_tx_attr *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_no_rx_ctx((struct kfid_ep *)0, (int)0, (struct kfi_rx_attr *)0, (struct kfid_ep **)0, (void *)0);
	acc += (long)kfi_no_rx_size_left((struct kfid_ep *)0);
	acc += (long)kfi_no_tx_size_left((struct kfid_ep *)0);
	acc += (long)kfi_no_setname((kfid_t)0, (void *)0, (size_t)0);
	acc += (long)kfi_no_getname((kfid_t)0, (void *)0, (size_t *)0);
	acc += (long)kfi_no_getpeer((struct kfid_ep *)0, (void *)0, (size_t *)0);
	acc += (long)kfi_no_connect((struct kfid_ep *)0, (const void *)0, (const void *)0, (size_t)0);
	acc += (long)kfi_no_listen((struct kfid_pep *)0);
	acc += (long)kfi_no_accept((struct kfid_ep *)0, (const void *)0, (size_t)0);
	acc += (long)kfi_no_reject((struct kfid_pep *)0, (kfid_t)0, (const void *)0, (size_t)0);
	acc += (long)kfi_no_shutdown((struct kfid_ep *)0, (uint64_t)0);
	acc += (long)kfi_no_join((struct kfid_ep *)0, (const void *)0, (uint64_t)0, (struct kfid_mc **)0, (void *)0);
	acc += (long)kfi_no_msg_recv((struct kfid_ep *)0, (void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_msg_recvv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_msg_recvbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_msg_recvmsg((struct kfid_ep *)0, (const struct kfi_msg *)0, (uint64_t)0);
	acc += (long)kfi_no_msg_send((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_msg_sendv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_msg_sendbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_msg_sendmsg((struct kfid_ep *)0, (const struct kfi_msg *)0, (uint64_t)0);
	acc += (long)kfi_no_msg_inject((struct kfid_ep *)0, (const void *)0, (size_t)0, (kfi_addr_t)0);
	acc += (long)kfi_no_msg_senddata((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (uint64_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_msg_injectdata((struct kfid_ep *)0, (const void *)0, (size_t)0, (uint64_t)0, (kfi_addr_t)0);
	acc += (long)kfi_no_msg_recvsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_msg_sendsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (void *)0);
	acc += (long)kfi_no_rma_read((struct kfid_ep *)0, (void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_rma_readv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_rma_readbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_rma_readmsg((struct kfid_ep *)0, (const struct kfi_msg_rma *)0, (uint64_t)0);
	acc += (long)kfi_no_rma_write((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_rma_writev((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_rma_writebv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_rma_writemsg((struct kfid_ep *)0, (const struct kfi_msg_rma *)0, (uint64_t)0);
	acc += (long)kfi_no_rma_inject((struct kfid_ep *)0, (const void *)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0);
	acc += (long)kfi_no_rma_writedata((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (uint64_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_rma_injectdata((struct kfid_ep *)0, (const void *)0, (size_t)0, (uint64_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0);
	acc += (long)kfi_no_rma_readsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_rma_writesgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_recv((struct kfid_ep *)0, (void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_recvv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_recvbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_recvmsg((struct kfid_ep *)0, (const struct kfi_msg_tagged *)0, (uint64_t)0);
	acc += (long)kfi_no_tagged_send((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_sendv((struct kfid_ep *)0, (const struct kvec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_sendbv((struct kfid_ep *)0, (const struct bio_vec *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_sendmsg((struct kfid_ep *)0, (const struct kfi_msg_tagged *)0, (uint64_t)0);
	acc += (long)kfi_no_tagged_inject((struct kfid_ep *)0, (const void *)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0);
	acc += (long)kfi_no_tagged_senddata((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (uint64_t)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_injectdata((struct kfid_ep *)0, (const void *)0, (size_t)0, (uint64_t)0, (kfi_addr_t)0, (uint64_t)0);
	acc += (long)kfi_no_tagged_recvsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_tagged_sendsgl((struct kfid_ep *)0, (const struct scatterlist *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (void *)0);
	acc += (long)kfi_no_atomic_write((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_no_atomic_writev((struct kfid_ep *)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_no_atomic_writemsg((struct kfid_ep *)0, (const struct kfi_msg_atomic *)0, (uint64_t)0);
	acc += (long)kfi_no_atomic_inject((struct kfid_ep *)0, (const void *)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0);
	acc += (long)kfi_no_atomic_readwrite((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (void *)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_no_atomic_readwritev((struct kfid_ep *)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (struct kfi_ioc *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_no_atomic_readwritemsg((struct kfid_ep *)0, (const struct kfi_msg_atomic *)0, (struct kfi_ioc *)0, (void **)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_no_atomic_compwrite((struct kfid_ep *)0, (const void *)0, (size_t)0, (void *)0, (const void *)0, (void *)0, (void *)0, (void *)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_no_atomic_compwritev((struct kfid_ep *)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (struct kfi_ioc *)0, (void **)0, (size_t)0, (kfi_addr_t)0, (uint64_t)0, (uint64_t)0, (enum kfi_datatype)0, (enum kfi_op)0, (void *)0);
	acc += (long)kfi_no_atomic_compwritemsg((struct kfid_ep *)0, (const struct kfi_msg_atomic *)0, (const struct kfi_ioc *)0, (void **)0, (size_t)0, (struct kfi_ioc *)0, (void **)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_no_atomic_writevalid((struct kfid_ep *)0, (enum kfi_datatype)0, (enum kfi_op)0, (size_t *)0);
	acc += (long)kfi_no_atomic_readwritevalid((struct kfid_ep *)0, (enum kfi_datatype)0, (enum kfi_op)0, (size_t *)0);
	acc += (long)kfi_no_atomic_compwritevalid((struct kfid_ep *)0, (enum kfi_datatype)0, (enum kfi_op)0, (size_t *)0);
	acc += (long)kfi_no_eq_write((struct kfid_eq *)0, (uint32_t)0, (const void *)0, (size_t)0, (uint64_t)0);
	acc += (long)kfi_no_eq_sread((struct kfid_eq *)0, (uint32_t *)0, (void *)0, (size_t)0, (int)0, (uint64_t)0);
	acc += (long)kfi_no_cq_readfrom((struct kfid_cq *)0, (void *)0, (size_t)0, (kfi_addr_t *)0);
	acc += (long)kfi_no_cq_sread((struct kfid_cq *)0, (void *)0, (size_t)0, (const void *)0, (int)0);
	acc += (long)kfi_no_cq_sreadfrom((struct kfid_cq *)0, (void *)0, (size_t)0, (kfi_addr_t *)0, (const void *)0, (int)0);
	acc += (long)kfi_no_cq_signal((struct kfid_cq *)0);
	acc += (long)kfi_no_cntr_add((struct kfid_cntr *)0, (uint64_t)0);
	acc += (long)kfi_no_cntr_set((struct kfid_cntr *)0, (uint64_t)0);
	acc += (long)kfi_no_cntr_wait((struct kfid_cntr *)0, (uint64_t)0, (int)0);
	acc += (long)kfi_no_cntr_adderr((struct kfid_cntr *)0, (uint64_t)0);
	acc += (long)kfi_no_cntr_seterr((struct kfid_cntr *)0, (uint64_t)0);
	acc += (long)kfi_no_wait((struct kfid_wait *)0, (int)0);
	acc += (long)kfi_no_poll((struct kfid_poll *)0, (void **)0, (int)0);
	acc += (long)kfi_no_poll_add((struct kfid_poll *)0, (struct kfid *)0, (uint64_t)0);
	acc += (long)kfi_no_poll_del((struct kfid_poll *)0, (struct kfid *)0, (uint64_t)0);
	return acc;
}

long kfitest_call_all(void)
{
	return kfitest_call_first() + kfitest_call_second();
}
