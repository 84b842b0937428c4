/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFITEST_H
#define KFITEST_H
long kfitest_call_all(void);
int kfitest_consumer(struct kfid_domain *dom, struct kfid_ep *tx,
		     struct kfid_ep *rx, struct kfid_cq *cq,
		     struct scatterlist *sgl, struct bio_vec *bv);
int kfitest_provider_init(void);
void kfitest_provider_exit(void);
int kfitest_trigger(struct kfid_domain *dom, struct kfid_ep *ep,
		    struct kfid_cntr *c1, struct kfid_cntr *c2);
#endif
