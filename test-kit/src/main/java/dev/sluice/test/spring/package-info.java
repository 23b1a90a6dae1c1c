/**
 * Spring Boot tests of applications that use Sluice: {@link dev.sluice.test.spring.AutoConfigureSluiceTest} puts an
 * in-process store on a manual clock in place of the configured backend, and
 * {@link dev.sluice.test.spring.SluiceSpringAssertions} checks MockMvc and WebTestClient answers.
 */
package dev.sluice.test.spring;
