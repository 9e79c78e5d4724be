/**
 * REST of admission control: guaranteed-latency flows ({@code v1/guarantees}).
 */
package org.planck.web.admission;
