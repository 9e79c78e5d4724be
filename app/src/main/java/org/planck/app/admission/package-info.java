/**
 * Admission control component (Loko): owns admitted guarantees (distributed), their pins and
 * meters, and guards traffic-engineering moves.
 */
package org.planck.app.admission;
