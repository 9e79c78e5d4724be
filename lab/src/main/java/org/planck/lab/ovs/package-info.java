/**
 * The lab's second fabric: a k-ary fat tree of Open vSwitch bridges (userspace datapath) with
 * hosts in network namespaces, programmed with the app's routing plan through the OpenFlow
 * southbound ({@link org.planck.lab.openflow}), and the checks that prove each shadow path on it.
 */
package org.planck.lab.ovs;
