package io.threadbench.server;

import jakarta.servlet.http.HttpServletRequest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * WorkController serves the contract's workload endpoints in the servlet
 * models. Each one blocks or burns CPU on the thread Tomcat gave it, which is
 * the thing being measured.
 */
@RestController
@RequestMapping("/api")
@ConditionalOnWebApplication(type = Type.SERVLET)
public class WorkController {

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
        HeavyRequest heavy = HeavyRequest.parse(request.getQueryString());
        for (int i = 0; i < heavy.times(); i++) {
            Thread.sleep(heavy.millis());
        }
        heavy.logDone(LOG);
        return WorkResponse.of(target, "heavy", heavy.durationMs());
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

    /** synchronizedSleep sleeps inside synchronized (SleepWork.inSynchronized). */
    @GetMapping("/synchronized")
    public WorkResponse synchronizedSleep(HttpServletRequest request) throws InterruptedException {
        int millis = IntParam.DURATION.parse(request.getQueryString());
        SleepWork.inSynchronized(millis);
        return WorkResponse.of(target, "synchronized", millis);
    }

    /** lockSleep sleeps holding a ReentrantLock (SleepWork.holdingLock). */
    @GetMapping("/lock")
    public WorkResponse lockSleep(HttpServletRequest request) throws InterruptedException {
        int millis = IntParam.DURATION.parse(request.getQueryString());
        SleepWork.holdingLock(millis);
        return WorkResponse.of(target, "lock", millis);
    }
}
