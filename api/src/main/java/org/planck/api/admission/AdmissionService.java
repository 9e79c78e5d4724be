package org.planck.api.admission;

import org.onosproject.event.ListenerService;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Admission control with per-packet latency guarantees (Loko): a flow is admitted only on a
 * shadow path where its delay bound, and that of every flow admitted before, stays within its
 * deadline under the benchmarked switch models.
 */
public interface AdmissionService extends ListenerService<GuaranteeEvent, GuaranteeListener> {

    /**
     * Admits a flow: picks a path, pins the flow to it and polices its token bucket.
     *
     * @param request what is asked
     * @return the admitted guarantee
     * @throws AdmissionRejectedException with the reason (which hop, which bound); nothing changed
     */
    Guarantee admit(GuaranteeRequest request) throws AdmissionRejectedException;

    /**
     * Withdraws a guarantee: its pin and meter are removed.
     *
     * @param id guarantee id
     * @return true if it existed
     */
    boolean remove(String id);

    /**
     * Every admitted guarantee, oldest first.
     *
     * @return guarantees
     */
    List<Guarantee> guarantees();

    /**
     * One guarantee.
     *
     * @param id guarantee id
     * @return it, or empty
     */
    Optional<Guarantee> guarantee(String id);

    /**
     * Each admitted flow's delay bound with all current guarantees in.
     *
     * @return id to ns
     */
    Map<String, Long> currentBounds();

    /**
     * Decisions taken on this node.
     *
     * @return counters
     */
    AdmissionCounters counters();
}
