//! Failures: transient and permanent errors, the dead-letter queue, redrive, and retries
//! with and without jitter.

use super::{about, choose, step, t};
use crate::lessons::{
    Checkpoint, Figure, Focus, Happening, Lesson, LessonStep, Metric, Table, Unit,
};

pub fn retries_and_dlq() -> Lesson {
    Lesson {
        name: "retries-and-dlq",
        title: t(
            "Retries and the dead-letter queue: transient vs permanent errors, and a slow redrive",
            "Reintentos y la cola de mensajes muertos: errores transitorios y permanentes, y un reenvío lento",
        ),
        scenario: "retries-dlq-redrive",
        steps: vec![poison_skips_retries(), outage_exhausts_retries(), redrive_finds_the_poison()],
    }
}

fn poison_skips_retries() -> LessonStep {
    step(
        &[Focus::Node("payments"), Focus::DeadLetters("payments")],
        t(
            "One payment in fifty is poison: its content can never be processed. Four attempts are allowed. How many attempts does a poison payment get before it is dead-lettered?",
            "Uno de cada cincuenta pagos es venenoso: su contenido nunca podrá procesarse. Se permiten cuatro intentos. ¿Cuántos intentos recibe un pago venenoso antes de ir a la cola de mensajes muertos?",
        ),
        about(1.0, 0.0, Unit::Count),
        Checkpoint::Next(Happening::DeadLetter),
        Figure::LatestDeadLetterAttempts("payments"),
        t(
            "Attempts: {figure}. A permanent error does not get better by waiting, so the consumer skips the retries and dead-letters it at once, with its reason. Retrying it would only burn capacity.",
            "Intentos: {figure}. Un error permanente no mejora esperando, así que el consumidor omite los reintentos y lo envía de inmediato a la cola de mensajes muertos, con su causa. Reintentarlo solo gastaría capacidad.",
        ),
    )
}

fn outage_exhausts_retries() -> LessonStep {
    step(
        &[Focus::DeadLetters("payments"), Focus::Metric(Metric::DeadLettered)],
        t(
            "From 10 s to 40 s a dependency is down. A failed payment gets four attempts in all, with exponential backoff and full jitter between them: each wait is drawn at random between 0 and 0.5 s, then 1 s, then 2 s, so the three waits add up to 3.5 s at most. What is in the dead-letter queue at 59 s?",
            "De los 10 s a los 40 s una dependencia está caída. Un pago fallido tiene cuatro intentos en total, con espera exponencial y jitter completo entre ellos: cada espera se sortea entre 0 y 0,5 s, luego 1 s, luego 2 s, así que las tres esperas suman como mucho 3,5 s. ¿Qué hay en la cola de mensajes muertos a los 59 s?",
        ),
        choose(
            1,
            [
                t("Nothing: the retries saved them all", "Nada: los reintentos los salvaron a todos"),
                t(
                    "Dozens: payments whose four attempts all fell in the outage, plus the poison",
                    "Decenas: los pagos cuyos cuatro intentos cayeron en la caída, más los venenosos",
                ),
                t("Only the poison payments", "Solo los pagos venenosos"),
            ],
        ),
        Checkpoint::At { s: 59.0 },
        Figure::DeadLettered,
        t(
            "Dead-lettered: {figure}. A 30 s outage far outlasts four attempts whose waits add up to 3.5 s at most, so a payment that fails during it runs out of attempts before the dependency is back, unless it first fails in the outage's last few seconds. The dead-letter queue keeps each with its reason and attempt count: they are neither done nor garbage.",
            "En la cola de mensajes muertos: {figure}. Una caída de 30 s dura mucho más que cuatro intentos cuyas esperas suman como mucho 3,5 s, así que un pago que falla durante ella agota sus intentos antes de que vuelva la dependencia, salvo si su primer fallo llega en los últimos segundos de la caída. La cola conserva cada uno con su causa y su número de intentos: no están procesados ni son basura.",
        ),
    )
}

fn redrive_finds_the_poison() -> LessonStep {
    step(
        &[Focus::DeadLetters("payments"), Focus::Node("payments")],
        t(
            "At 60 s, with the dependency back, an operator redrives the dead-letter queue at 5 messages per second. What happens to the poison payments?",
            "A los 60 s, con la dependencia recuperada, un operador reenvía la cola de mensajes muertos a 5 mensajes por segundo. ¿Qué pasa con los pagos venenosos?",
        ),
        choose(
            1,
            [
                t("They succeed now", "Ahora tienen éxito"),
                t(
                    "They fail again and go back to the dead-letter queue",
                    "Fallan otra vez y vuelven a la cola de mensajes muertos",
                ),
                t("They are deleted", "Se borran"),
            ],
        ),
        Checkpoint::End,
        Figure::DeadLetteredAgain,
        t(
            "Dead-lettered again: {figure}. The redrive rescued the outage's victims (same ids, so the inbox still stops duplicates), but nothing fixed the poison. Classify the causes before a redrive, and redrive slowly so the consumers are not flooded.",
            "Otra vez en la cola de mensajes muertos: {figure}. El reenvío rescató a las víctimas de la caída (mismos ids, así que el inbox sigue frenando duplicados), pero nada arregló a los venenosos. Clasifica las causas antes de reenviar, y reenvía despacio para no inundar a los consumidores.",
        ),
    )
}

pub fn retry_jitter() -> Lesson {
    Lesson {
        name: "retry-jitter",
        title: t(
            "Backoff with and without jitter",
            "Espera exponencial con y sin jitter",
        ),
        scenario: "retry-jitter",
        steps: vec![lockstep_retries_together(), jitter_spreads_retries()],
    }
}

fn lockstep_retries_together() -> LessonStep {
    step(
        &[Focus::Node("lockstep"), Focus::Metric(Metric::InFlight)],
        t(
            "Forty jobs fail at the same moment while a dependency is down. 'lockstep' retries after exactly 1 s, then 2 s, 4 s… How many of its jobs run against the dependency at once on the first retry?",
            "Cuarenta jobs fallan en el mismo instante mientras una dependencia está caída. 'lockstep' reintenta tras exactamente 1 s, luego 2 s, 4 s… ¿Cuántos de sus jobs golpean a la vez la dependencia en el primer reintento?",
        ),
        about(40.0, 4.0, Unit::Messages),
        Checkpoint::At { s: 1.06 },
        Figure::InFlightIn("lockstep"),
        t(
            "{figure} at once. Without jitter every job computed the same delay, so they all came back together, and will again at each step of the backoff. That synchronised wave is what knocks over a dependency that is trying to recover.",
            "{figure} a la vez. Sin jitter cada job calculó la misma espera, así que todos volvieron juntos, y lo harán otra vez en cada paso de la espera exponencial. Esa ola sincronizada es lo que tumba a una dependencia que intenta recuperarse.",
        ),
    )
}

fn jitter_spreads_retries() -> LessonStep {
    step(
        &[Focus::Node("jittered"), Focus::Metric(Metric::InFlight)],
        t(
            "'jittered' draws each delay at random between 0 and the backoff. How many of its jobs are running at that same moment?",
            "'jittered' elige cada espera al azar entre 0 y la espera exponencial. ¿Cuántos de sus jobs se están ejecutando en ese mismo instante?",
        ),
        choose(
            1,
            [
                t("About 40 as well", "También unos 40"),
                t("A few: the retries are spread out", "Unos pocos: los reintentos se reparten"),
                t("None: jitter delays them all", "Ninguno: el jitter los retrasa a todos"),
            ],
        ),
        Checkpoint::At { s: 1.06 },
        Figure::InFlightIn("jittered"),
        t(
            "{figure}. The forty first retries were spread over the whole first backoff window, so the dependency sees a trickle instead of a wave. Against an outage, jitter spreads the calls without cutting them: a fully jittered wait lasts half the backoff on average, so in this run more attempts landed inside the 3 s outage than in lockstep, and failed. How many retries there are is for a retry budget or a circuit breaker to limit; jitter only decides when they come.",
            "{figure}. Los cuarenta primeros reintentos se repartieron por toda la primera ventana de espera, así que la dependencia recibe un goteo en lugar de una ola. Frente a una caída, el jitter reparte las llamadas sin reducirlas: con jitter completo una espera dura en promedio la mitad de la espera exponencial, así que en esta ejecución cayeron más intentos dentro de la caída de 3 s que en lockstep, y fallaron. Cuántos reintentos hay lo limita un presupuesto de reintentos o un circuit breaker; el jitter solo decide cuándo llegan.",
        ),
    )
}

pub fn untrusted_source() -> Lesson {
    Lesson {
        name: "untrusted-source",
        title: t(
            "Stolen credentials: the broker is not a trust boundary",
            "Credenciales robadas: el broker no es una frontera de confianza",
        ),
        scenario: "untrusted-source",
        steps: vec![
            checked_refuses_at_once(),
            unchecked_applies_the_theft(),
            the_real_withdrawal_finds_nothing(),
        ],
    }
}

fn checked_refuses_at_once() -> LessonStep {
    step(
        &[Focus::Node("checked"), Focus::DeadLetters("checked")],
        t(
            "At 3 s a withdrawal of 100 from account 42 arrives from 'partner-api', a partner whose credentials were stolen. The exchange lets the partner publish payments for its own customers; this one is well-formed and reaches the broker like any payment, but account 42's tenant is not one the partner may act for. 'checked' verifies the source's authority before any effect, and allows five attempts. How many attempts does it give this withdrawal before dead-lettering it?",
            "A los 3 s llega un retiro de 100 de la cuenta 42 desde 'partner-api', un socio cuyas credenciales fueron robadas. El exchange deja al socio publicar pagos de sus propios clientes; este está bien formado y llega al broker como cualquier pago, pero el tenant de la cuenta 42 no es uno por el que el socio pueda actuar. 'checked' verifica la autoridad del origen antes de cualquier efecto, y permite cinco intentos. ¿Cuántos intentos le da a este retiro antes de enviarlo a la cola de mensajes muertos?",
        ),
        about(1.0, 0.0, Unit::Count),
        Checkpoint::Next(Happening::DeadLetter),
        Figure::LatestDeadLetterAttempts("checked"),
        t(
            "Attempts: {figure}. A refusal of authority is permanent: waiting will not authorise the source, so retrying would only burn capacity. The message stays in the dead-letter queue with its reason for someone to investigate, and who may read or redrive that queue is itself a permission to guard.",
            "Intentos: {figure}. Una negativa de autoridad es permanente: esperar no va a autorizar al origen, así que reintentar solo gastaría capacidad. El mensaje queda en la cola de mensajes muertos con su causa para que alguien lo investigue, y quién puede leer o reenviar esa cola es también un permiso que hay que proteger.",
        ),
    )
}

fn unchecked_applies_the_theft() -> LessonStep {
    step(
        &[Focus::Node("unchecked")],
        t(
            "'unchecked' acts on whatever the broker delivers: the message came from our own broker, so it must be legitimate. What does it do with the same withdrawal?",
            "'unchecked' actúa sobre todo lo que entrega el broker: el mensaje vino de nuestro propio broker, así que debe ser legítimo. ¿Qué hace con el mismo retiro?",
        ),
        choose(
            1,
            [
                t(
                    "It dead-letters it too: the message is poison",
                    "También lo envía a la cola de mensajes muertos: el mensaje es venenoso",
                ),
                t(
                    "It applies it: account 42 loses the 100",
                    "Lo aplica: la cuenta 42 pierde los 100",
                ),
                t(
                    "Nothing: the broker would not have delivered an unauthorised message",
                    "Nada: el broker no habría entregado un mensaje no autorizado",
                ),
            ],
        ),
        Checkpoint::Next(Happening::UnauthorizedEffect),
        Figure::Balance {
            table: Table::Queue("unchecked"),
            key: 42,
        },
        t(
            "Account 42 on 'unchecked': {figure}. The broker checks who may publish to the exchange, and the partner's credentials may; it knows nothing of tenants or accounts. Only the consumer can ask whether this source may ask for this effect. Its syntax was valid, so nothing else gave it away, and 'Only authorised effects' is now broken.",
            "La cuenta 42 en 'unchecked': {figure}. El broker comprueba quién puede publicar en el exchange, y las credenciales del socio pueden; no sabe nada de tenants ni de cuentas. Solo el consumidor puede preguntar si este origen puede pedir este efecto. Su sintaxis era válida, así que nada más lo delataba, y «Solo efectos autorizados» está roto.",
        ),
    )
}

fn the_real_withdrawal_finds_nothing() -> LessonStep {
    step(
        &[Focus::Node("unchecked"), Focus::Node("checked")],
        t(
            "At 5 s 'payments-api', which does act for account 42, withdraws 30 from it. What balance does account 42 end with on 'unchecked'?",
            "A los 5 s 'payments-api', que sí actúa por la cuenta 42, retira 30 de ella. ¿Con qué saldo termina la cuenta 42 en 'unchecked'?",
        ),
        about(0.0, 0.0, Unit::Dollars),
        Checkpoint::End,
        Figure::Balance {
            table: Table::Queue("unchecked"),
            key: 42,
        },
        t(
            "{figure}: the real withdrawal was refused for want of funds, while 'checked' applied it and ends at 70. There every message was acked and nothing is lost, yet its database holds two effects nobody entitled asked for. The stolen credentials of 'reports' got nowhere at 6 s: the exchange does not list it among its publishers, so the broker refused its withdrawal outright. Check schema, tenant, version and the source's authority in the consumer; grant each producer at the broker only the destinations it needs; a signature proves who sent a message, not that the sender may ask for its effect.",
            "{figure}: el retiro real se rechazó por falta de fondos, mientras que 'checked' lo aplicó y termina en 70. Allí todos los mensajes recibieron ack y nada se perdió, y aun así su base de datos guarda dos efectos que nadie con derecho pidió. Las credenciales robadas de 'reports' no llegaron a nada a los 6 s: el exchange no lo incluye entre sus publicadores, así que el broker rechazó su retiro de entrada. Comprueba en el consumidor el esquema, el tenant, la versión y la autoridad del origen; concede a cada productor en el broker solo los destinos que necesita; una firma prueba quién envió un mensaje, no que pueda pedir su efecto.",
        ),
    )
}

pub fn replay_window() -> Lesson {
    Lesson {
        name: "replay-window",
        title: t(
            "A replay window: old is not the same as replayed",
            "Una ventana de repetición: antiguo no es lo mismo que repetido",
        ),
        scenario: "replay-window",
        steps: vec![redrive_without_a_window(), redrive_into_a_window()],
    }
}

fn redrive_without_a_window() -> LessonStep {
    step(
        &[Focus::Node("open"), Focus::DeadLetters("open")],
        t(
            "Payments arrive at 2 per second for 30 s. The handlers' dependency is down from 5 s to 15 s, and two attempts one second apart are allowed, so the payments of the outage go to the dead-letter queues. At 40 s an operator redrives both queues. How many of the 60 payments has 'open' applied in the end?",
            "Los pagos llegan a 2 por segundo durante 30 s. La dependencia de los handlers está caída de los 5 s a los 15 s, y se permiten dos intentos con un segundo entre ellos, así que los pagos de la caída van a las colas de mensajes muertos. A los 40 s un operador reenvía las dos colas. ¿Cuántos de los 60 pagos ha aplicado 'open' al final?",
        ),
        about(60.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsIn("open"),
        t(
            "Effects: {figure}. The dependency was back, so every redriven payment succeeded, once each: the inbox knows every id, so a true replay of one would have been skipped as a duplicate.",
            "Efectos: {figure}. La dependencia había vuelto, así que cada pago reenviado salió bien, una vez cada uno: el inbox conoce cada id, así que una repetición verdadera se habría omitido como duplicado.",
        ),
    )
}

fn redrive_into_a_window() -> LessonStep {
    step(
        &[Focus::Node("windowed"), Focus::DeadLetters("windowed")],
        t(
            "'windowed' also refuses any message created more than 20 s ago, a guard against replayed commands. How many of the 60 payments has it applied in the end?",
            "'windowed' además rechaza cualquier mensaje creado hace más de 20 s, como defensa contra comandos repetidos. ¿Cuántos de los 60 pagos ha aplicado al final?",
        ),
        about(42.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsIn("windowed"),
        t(
            "Effects: {figure}. The 18 redriven payments were 30 to 35 s old, so each was refused again at its first attempt and went back to the dead-letter queue: legitimate work, refused for having waited. A window cannot tell a replay from a delay (a backlog, a redrive, a skewed clock); make it wider than any legitimate delay, and let the event id catch the replays.",
            "Efectos: {figure}. Los 18 pagos reenviados tenían entre 30 y 35 s, así que cada uno se rechazó otra vez al primer intento y volvió a la cola de mensajes muertos: trabajo legítimo, rechazado por haber esperado. Una ventana no distingue una repetición de un retraso (un acumulado, un reenvío, un reloj desajustado); hazla más ancha que cualquier retraso legítimo, y deja que el id del evento detecte las repeticiones.",
        ),
    )
}
