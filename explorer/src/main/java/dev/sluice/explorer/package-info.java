/**
 * The explorer: every rate algorithm's pure step run on the same generated traffic with simulated time, drawn
 * with JFreeChart as PNG and measured against the exact sliding log. Not published;
 * {@link dev.sluice.explorer.Explorer} is the command.
 */
package dev.sluice.explorer;
