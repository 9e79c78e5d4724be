/**
 * Admission decisions outside ONOS: the app's own network calculus
 * ({@code org.planck.app.admission.algo}) driven from a JSON request, for the validation on
 * real Open vSwitch (loko/validate.py).
 */
package org.planck.lab.admission;
