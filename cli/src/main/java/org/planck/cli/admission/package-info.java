/**
 * CLI of admission control: planck-guarantee add|list|remove.
 */
package org.planck.cli.admission;
