package io.threadbench.server;

import java.util.concurrent.locks.ReentrantLock;

import jakarta.servlet.http.HttpServletRequest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * WorkController serves the contract's workload endpoints. Each one blocks or
 * burns CPU on the thread Tomcat gave it, which is the thing being measured.
 */
@RestController
@RequestMapping("/api")
public class WorkController {

    /**
     * escapedMonitor only exists so the per-request monitor escapes: C2 elides
     * locks on objects that never leave the method, and synchronized would then
     * measure nothing once the handler is compiled.
     */
    @SuppressWarnings("unused")
    private static Object escapedMonitor;

    private static final Logger LOG = LoggerFactory.getLogger(WorkController.class);

    private final String target;
    private final NativeSleep nativeSleep;

    /** WorkController answers as {@code info.target()} and sleeps natively through {@code nativeSleep}. */
    public WorkController(TargetInfo info, NativeSleep nativeSleep) {
        this.target = info.target();
        this.nativeSleep = nativeSleep;
    }

    /** light answers at once. */
    @GetMapping("/light")
    public WorkResponse light() {
        return WorkResponse.of(target, "light", 0);
    }

    /**
     * heavy blocks with Thread.sleep, {@code times} sleeps in a row: a virtual
     * thread unmounts, a platform thread is held. With {@code log=1} it then
     * logs a line through SLF4J, as seed 004's handler logs "Done" (Spring
     * Boot's default: Logback's console appender, which writes under a
     * ReentrantLock since Logback 1.3, so it does not pin). durationMs is
     * the time slept.
     */
    @GetMapping("/heavy")
    public WorkResponse heavy(HttpServletRequest request) throws InterruptedException {
        String query = request.getQueryString();
        int millis = IntParam.DURATION.parse(query);
        int times = IntParam.TIMES.parse(query);
        boolean logged = IntParam.LOG.parse(query) == 1;
        for (int i = 0; i < times; i++) {
            Thread.sleep(millis);
        }
        if (logged) {
            LOG.info("heavy: slept {} ms x {}: Done", millis, times);
        }
        return WorkResponse.of(target, "heavy", millis * times);
    }

    /** cpu does the contract's SHA-256 rounds. */
    @GetMapping("/cpu")
    public WorkResponse cpu(HttpServletRequest request) {
        int rounds = IntParam.WORK.parse(request.getQueryString());
        String checksum = CpuWork.run(rounds);
        return WorkResponse.of(target, "cpu", 0).withWork(rounds, checksum);
    }

    /** nativeSleep blocks in a nanosleep downcall, which holds (pins) the OS thread. */
    @GetMapping("/native")
    public WorkResponse nativeSleep(HttpServletRequest request) {
        int millis = IntParam.DURATION.parse(request.getQueryString());
        nativeSleep.sleep(millis);
        return WorkResponse.of(target, "native", millis);
    }

    /**
     * synchronizedSleep sleeps holding a monitor nobody else can contend for:
     * it measures only the cost of sleeping inside synchronized, which pins a
     * virtual thread's carrier on JDK 21-23 and not since JDK 24 (JEP 491).
     */
    @GetMapping("/synchronized")
    public WorkResponse synchronizedSleep(HttpServletRequest request) throws InterruptedException {
        int millis = IntParam.DURATION.parse(request.getQueryString());
        Object monitor = new Object();
        escapedMonitor = monitor;
        synchronized (monitor) {
            Thread.sleep(millis);
        }
        return WorkResponse.of(target, "synchronized", millis);
    }

    /**
     * lockSleep sleeps holding a ReentrantLock made for this request, the fix
     * seed 003 recommends for synchronized: a virtual thread that sleeps
     * holding one unmounts and frees its carrier on every JDK.
     */
    @GetMapping("/lock")
    public WorkResponse lockSleep(HttpServletRequest request) throws InterruptedException {
        int millis = IntParam.DURATION.parse(request.getQueryString());
        ReentrantLock lock = new ReentrantLock();
        escapedMonitor = lock;
        lock.lock();
        try {
            Thread.sleep(millis);
        } finally {
            lock.unlock();
        }
        return WorkResponse.of(target, "lock", millis);
    }
}
