/**
 * The lab's OpenFlow 1.3 southbound (OpenFlowJ on netty): accepts switch connections, does the
 * HELLO/FEATURES/echo handshake, installs the app's planned rules as flow-mods translated the way
 * ONOS's OpenFlow provider translates the app's flow rules, closes each batch with a barrier so
 * the caller knows when a rule is in force, reports OFPT_ERROR against the rule that caused it,
 * reads port statistics, and re-installs a switch's rules when it reconnects.
 */
package org.planck.lab.openflow;
