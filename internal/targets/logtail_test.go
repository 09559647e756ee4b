package targets

import (
	"slices"
	"testing"
)

// A Spring Boot start that failed on its database: the root cause comes
// first, the exception chain last; the frames between are not telling.
func TestTellingLines(t *testing.T) {
	log := `NOTE: Picked up JDK_JAVA_OPTIONS: -XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError
2026-11-28T20:45:20.100Z  INFO 1 --- [orders] [main] c.e.orders.OrdersApplication : Starting OrdersApplication
2026-11-28T20:45:24.310Z  WARN 1 --- [orders] [main] o.h.e.j.e.i.JdbcEnvironmentInitiator : HHH000342: Could not obtain connection to query metadata
org.postgresql.util.PSQLException: FATAL: password authentication failed for user "threadbench"
	at org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:743) ~[postgresql-42.7.11.jar!/:42.7.11]
	at org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:234) ~[postgresql-42.7.11.jar!/:42.7.11]
2026-11-28T20:45:25.900Z ERROR 1 --- [orders] [main] o.s.boot.SpringApplication : Application run failed
org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'entityManagerFactory'
	at org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactory.initializeBean(AbstractAutowireCapableBeanFactory.java:1811)
	... 20 common frames omitted
Caused by: org.hibernate.service.spi.ServiceException: Unable to create requested service
	at org.hibernate.service.internal.AbstractServiceRegistryImpl.createService(AbstractServiceRegistryImpl.java:273)
Caused by: org.hibernate.HibernateException: Unable to determine Dialect without JDBC metadata
	at org.hibernate.engine.jdbc.dialect.internal.DialectFactoryImpl.determineDialect(DialectFactoryImpl.java:190)
	... 36 common frames omitted
`
	got := tellingLines(log)
	want := []string{
		`org.postgresql.util.PSQLException: FATAL: password authentication failed for user "threadbench"`,
		"2026-11-28T20:45:25.900Z ERROR 1 --- [orders] [main] o.s.boot.SpringApplication : Application run failed",
		"org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'entityManagerFactory'",
		"Caused by: org.hibernate.HibernateException: Unable to determine Dialect without JDBC metadata",
	}
	if !slices.Equal(got, want) {
		t.Errorf("telling lines:\n%q\nwant:\n%q", got, want)
	}
	if got := tellingLines("listening on :8080\nready\n"); len(got) != 0 {
		t.Errorf("a log without a failure tells %q", got)
	}
	if got := lastLines("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("lastLines = %q", got)
	}
}
