//! Load and capacity: queue vs topic, the backlog arithmetic, backpressure, prefetch.

use super::{about, choose, step, t};
use crate::lessons::{Checkpoint, Figure, Focus, Lesson, LessonStep, Metric, Unit};

pub fn queue_vs_topic() -> Lesson {
    Lesson {
        name: "queue-vs-topic",
        title: t(
            "Queue vs topic: competing consumers and independent subscriptions",
            "Cola frente a topic: consumidores que compiten y suscripciones independientes",
        ),
        scenario: "queue-vs-topic",
        steps: vec![
            billing_shares_its_queue(),
            shipping_falls_behind_alone(),
            shipping_keeps_its_backlog(),
        ],
    }
}

fn billing_shares_its_queue() -> LessonStep {
    step(
        &[Focus::Node("orders"), Focus::Node("billing")],
        t(
            "Twenty orders go out through the 'orders' exchange. Billing is one queue read by two competing workers. How many effects does billing apply in all, over both workers?",
            "Veinte pedidos salen por el exchange 'orders'. Billing es una cola que leen dos workers que compiten. ¿Cuántos efectos aplica billing en total, sumando ambos workers?",
        ),
        about(20.0, 0.0, Unit::Count),
        Checkpoint::At { s: 12.0 },
        Figure::EffectsIn("billing"),
        t(
            "Billing applied {figure} effects: every order once, split between its two workers. Workers that compete for one queue share its messages; a second worker adds parallelism, not a second copy. That is how a command travels ('bill this order'): one handler is responsible for it, and that handler may refuse it.",
            "Billing aplicó {figure} efectos: cada pedido una vez, repartidos entre sus dos workers. Los workers que compiten por una cola se reparten sus mensajes; un segundo worker suma paralelismo, no una segunda copia. Así viaja un comando («factura este pedido»): un solo handler es responsable de él, y ese handler puede rechazarlo.",
        ),
    )
}

fn shipping_falls_behind_alone() -> LessonStep {
    step(
        &[Focus::Node("shipping"), Focus::Metric(Metric::Backlog)],
        t(
            "Shipping is a second subscription to the same exchange. Its only consumer crashed at 5 s and stays down. At 12 s, how many orders wait in shipping?",
            "Shipping es una segunda suscripción al mismo exchange. Su único consumidor cayó a los 5 s y sigue caído. A los 12 s, ¿cuántos pedidos esperan en shipping?",
        ),
        about(11.0, 2.0, Unit::Messages),
        Checkpoint::At { s: 12.0 },
        Figure::Waiting("shipping"),
        t(
            "{figure} wait in shipping, while billing's queue is empty. The exchange gave each subscription its own copy of every order, and each keeps its own progress: publishing once did not mean that everyone processed it. That is how an event travels ('order placed'): a fact already done, announced to every subscriber, each of which decides what it means for itself; none can refuse that it happened.",
            "En shipping esperan {figure}, mientras la cola de billing está vacía. El exchange dio a cada suscripción su propia copia de cada pedido y cada una lleva su propio progreso: publicar una vez no significó que todos lo procesaran. Así viaja un evento («pedido realizado»): un hecho ya ocurrido, anunciado a cada suscriptor, que decide qué significa para él; ninguno puede rechazar que ocurrió.",
        ),
    )
}

fn shipping_keeps_its_backlog() -> LessonStep {
    step(
        &[Focus::Node("shipping")],
        t(
            "Nobody restarts shipping's consumer. What happens to the orders waiting there by the end of the run?",
            "Nadie reinicia el consumidor de shipping. ¿Qué pasa con los pedidos que esperan allí al final de la ejecución?",
        ),
        choose(
            1,
            [
                t("They expire and are lost", "Expiran y se pierden"),
                t(
                    "They keep waiting in shipping until a consumer comes back",
                    "Siguen esperando en shipping hasta que vuelva un consumidor",
                ),
                t("Billing's workers take them over", "Los workers de billing se los quedan"),
            ],
        ),
        Checkpoint::End,
        Figure::Waiting("shipping"),
        t(
            "Still waiting: {figure}. A subscription's backlog belongs to it alone; billing's workers never see shipping's copies. A topic with a broken subscription is a publication nobody acts on, so subscriptions need their own monitoring.",
            "Siguen esperando: {figure}. El acumulado de una suscripción es solo suyo; los workers de billing nunca ven las copias de shipping. Un topic con una suscripción rota es una publicación que nadie atiende, así que cada suscripción necesita su propio monitoreo.",
        ),
    )
}

pub fn backlog_arithmetic() -> Lesson {
    Lesson {
        name: "backlog-arithmetic",
        title: t(
            "Backlog arithmetic: a burst larger than capacity",
            "Aritmética del acumulado: una ráfaga mayor que la capacidad",
        ),
        scenario: "burst",
        steps: vec![
            backlog_after_the_burst(),
            oldest_age_after_the_burst(),
            drain_time(),
        ],
    }
}

fn backlog_after_the_burst() -> LessonStep {
    step(
        &[Focus::Node("checkout"), Focus::Node("orders"), Focus::Metric(Metric::Backlog)],
        t(
            "For 60 s, 3,000 orders arrive per second; the workers together finish 2,000 per second. How many orders wait at 60 s?",
            "Durante 60 s llegan 3.000 pedidos por segundo; los workers juntos terminan 2.000 por segundo. ¿Cuántos pedidos esperan a los 60 s?",
        ),
        about(60_000.0, 6_000.0, Unit::Messages),
        Checkpoint::At { s: 60.0 },
        Figure::Backlog,
        t(
            "{figure} wait. The line grows by the difference between arrival and completion: (3,000 − 2,000) × 60 s ≈ 60,000. The queue absorbs the burst; it adds no capacity.",
            "Esperan {figure}. La fila crece según la diferencia entre llegada y finalización: (3.000 − 2.000) × 60 s ≈ 60.000. La cola absorbe la ráfaga; no añade capacidad.",
        ),
    )
}

fn oldest_age_after_the_burst() -> LessonStep {
    step(
        &[Focus::Metric(Metric::OldestAge)],
        t(
            "At that moment, how long has the oldest waiting order been waiting? (The queue serves in order of arrival.)",
            "En ese momento, ¿cuánto lleva esperando el pedido más antiguo? (La cola atiende por orden de llegada.)",
        ),
        about(20.0, 3.0, Unit::Seconds),
        Checkpoint::At { s: 60.0 },
        Figure::OldestAge,
        t(
            "The oldest has waited {figure}: the orders still waiting are the last 20 s of arrivals (60,000 at 3,000 per second). Length and age are different measures, and age is what a user or a deadline feels.",
            "El más antiguo lleva {figure}: los pedidos que esperan son los últimos 20 s de llegadas (60.000 a 3.000 por segundo). Longitud y antigüedad miden cosas distintas, y la antigüedad es lo que siente un usuario o un plazo.",
        ),
    )
}

fn drain_time() -> LessonStep {
    step(
        &[Focus::Node("checkout"), Focus::Metric(Metric::Backlog)],
        t(
            "Now arrivals drop to 1,000 per second and the workers still finish 2,000. How many seconds until the backlog is empty?",
            "Ahora la llegada baja a 1.000 por segundo y los workers siguen terminando 2.000. ¿Cuántos segundos tarda el acumulado en vaciarse?",
        ),
        about(60.0, 6.0, Unit::Seconds),
        Checkpoint::BacklogEmpty,
        Figure::SecondsSince(60.0),
        t(
            "Empty {figure} after the burst ended. The spare capacity is 2,000 − 1,000 = 1,000 per second, and 60,000 / 1,000 = 60 s. Retries or slower tasks would eat into that spare capacity and stretch the drain.",
            "Vacío {figure} después de que terminó la ráfaga. La capacidad sobrante es 2.000 − 1.000 = 1.000 por segundo, y 60.000 / 1.000 = 60 s. Los reintentos o las tareas más lentas consumirían esa capacidad sobrante y alargarían el drenaje.",
        ),
    )
}

pub fn backpressure() -> Lesson {
    Lesson {
        name: "backpressure",
        title: t(
            "Backpressure: an unbounded queue vs admission control",
            "Contrapresión: una cola sin límite frente al control de admisión",
        ),
        scenario: "admission-control",
        steps: vec![
            unbounded_wait_grows(),
            admitted_wait_stays_short(),
            admitted_refuses_the_excess(),
            refused_jobs_are_visible(),
        ],
    }
}

fn unbounded_wait_grows() -> LessonStep {
    step(
        &[Focus::Node("unbounded"), Focus::Metric(Metric::OldestAge)],
        t(
            "'unbounded' takes 30 requests per second, its workers finish 20, and it accepts everything. After 60 s, how long has its oldest request been waiting?",
            "'unbounded' recibe 30 solicitudes por segundo, sus workers terminan 20 y acepta todo. A los 60 s, ¿cuánto lleva esperando su solicitud más antigua?",
        ),
        about(20.0, 3.0, Unit::Seconds),
        Checkpoint::At { s: 60.0 },
        Figure::OldestAgeIn("unbounded"),
        t(
            "{figure}. About 600 requests wait, the last 20 s of arrivals. Nothing failed and nothing was refused: the queue simply made every answer later. An unbounded queue hides overload until a deadline or the storage runs out.",
            "{figure}. Esperan unas 600 solicitudes, los últimos 20 s de llegadas. Nada falló y nada se rechazó: la cola simplemente retrasó cada respuesta. Una cola sin límite esconde la sobrecarga hasta que se agota un plazo o el almacenamiento.",
        ),
    )
}

fn admitted_wait_stays_short() -> LessonStep {
    step(
        &[Focus::Node("admitted"), Focus::Metric(Metric::OldestAge)],
        t(
            "'admitted' gets the same load but refuses new requests while its oldest waiting one is older than 5 s. How old is its oldest request at 60 s?",
            "'admitted' recibe la misma carga, pero rechaza solicitudes nuevas mientras la más antigua en espera supere los 5 s. ¿Qué antigüedad tiene su solicitud más antigua a los 60 s?",
        ),
        about(5.0, 1.0, Unit::Seconds),
        Checkpoint::At { s: 60.0 },
        Figure::OldestAgeIn("admitted"),
        t(
            "{figure}: the wait stays at the limit, because the excess is turned away at the door instead of queued. The limit is stated in time, the unit a user's patience and a contract use.",
            "{figure}: la espera se queda en el límite, porque el exceso se rechaza en la puerta en lugar de encolarse. El límite se expresa en tiempo, la unidad de la paciencia de un usuario y de un contrato.",
        ),
    )
}

fn admitted_refuses_the_excess() -> LessonStep {
    step(
        &[Focus::Node("admitted"), Focus::Metric(Metric::Refused)],
        t(
            "About how many requests did 'admitted' refuse in those 60 s?",
            "¿Aproximadamente cuántas solicitudes rechazó 'admitted' en esos 60 s?",
        ),
        about(450.0, 100.0, Unit::Messages),
        Checkpoint::At { s: 60.0 },
        Figure::Refused,
        t(
            "Refused: {figure}, roughly the 10 per second the workers cannot absorb, from the moment the limit was reached: the oldest request's wait grows by a third of a second each second (20 of every 30 arrivals are served), so it passes 5 s at about 15 s, and 10 × 45 s ≈ 450. A refusal is an answer the client can act on; a request stuck for minutes is not.",
            "Rechazados: {figure}, más o menos los 10 por segundo que los workers no pueden absorber, desde que se alcanzó el límite: la espera de la solicitud más antigua crece un tercio de segundo por segundo (se atienden 20 de cada 30 llegadas), así que pasa de 5 s hacia los 15 s, y 10 × 45 s ≈ 450. Un rechazo es una respuesta sobre la que el cliente puede actuar; una solicitud atascada durante minutos, no.",
        ),
    )
}

fn refused_jobs_are_visible() -> LessonStep {
    step(
        &[Focus::Node("reports-b")],
        t(
            "Every request is a job with an id the client can poll (the 202 Accepted contract). What status do the refused ones end with?",
            "Cada solicitud es un job con un id que el cliente puede consultar (el contrato de 202 Accepted). ¿Con qué estado terminan las rechazadas?",
        ),
        choose(
            1,
            [
                t("Pending, for ever", "Pendiente, para siempre"),
                t("Failed", "Fallido"),
                t("Completed", "Completado"),
            ],
        ),
        Checkpoint::End,
        Figure::FailedJobs,
        t(
            "Failed jobs: {figure}. The status tells pending, running, completed or failed, so no client waits for work that will never happen, and the failures are counted where operators can see them.",
            "Jobs fallidos: {figure}. El estado distingue pendiente, en ejecución, completado o fallido, así que ningún cliente espera un trabajo que nunca ocurrirá, y los fallos quedan contados donde los operadores pueden verlos.",
        ),
    )
}

pub fn prefetch_fairness() -> Lesson {
    Lesson {
        name: "prefetch-fairness",
        title: t(
            "Prefetch and fairness: a slow consumer that hoards",
            "Prefetch y reparto justo: un consumidor lento que acapara",
        ),
        scenario: "prefetch-fairness",
        steps: vec![
            hoarded_in_the_buffer(),
            one_slot_shares_fairly(),
            a_hoarders_crash_returns_its_buffer(),
            the_hoard_drains_one_order_every_2_s(),
        ],
    }
}

fn hoarded_in_the_buffer() -> LessonStep {
    step(
        &[Focus::Node("greedy"), Focus::Node("greedy-slow")],
        t(
            "For 10 s, 20 orders arrive per second, and each queue gets a copy of every one. On 'greedy', greedy-slow takes 2 s per order and may hold 100 unacked; the two quick consumers take 0.1 s and hold one each. At 10 s, where are most of the orders 'greedy' has not finished?",
            "Durante 10 s llegan 20 pedidos por segundo, y cada cola recibe una copia de cada uno. En 'greedy', greedy-slow tarda 2 s por pedido y puede tener 100 sin ack; los dos consumidores rápidos tardan 0,1 s y tienen uno cada uno. A los 10 s, ¿dónde está la mayoría de los pedidos que 'greedy' no ha terminado?",
        ),
        choose(
            1,
            [
                t(
                    "Waiting in the queue for a free consumer",
                    "Esperando en la cola a un consumidor libre",
                ),
                t(
                    "Delivered to greedy-slow, waiting in its buffer",
                    "Entregados a greedy-slow, esperando en su búfer",
                ),
                t(
                    "Spread evenly over the three consumers",
                    "Repartidos por igual entre los tres consumidores",
                ),
            ],
        ),
        Checkpoint::At { s: 10.0 },
        Figure::InFlightIn("greedy"),
        t(
            "In flight on 'greedy': {figure}, and none waiting. The broker hands each order, in turn, to a consumer with a free prefetch slot, and greedy-slow had 100 of them. At 2 s per order they sit unacked in its buffer, where the two quick consumers could have done them all in about 3 s. The queue's card reads 'waiting 0': the wait is hidden inside a consumer, whose card counts it as 'buffered'.",
            "En vuelo en 'greedy': {figure}, y ninguno esperando. El broker entrega cada pedido, por turno, a un consumidor con un hueco libre de prefetch, y greedy-slow tenía 100. A 2 s por pedido se quedan sin ack en su búfer, cuando los dos consumidores rápidos los habrían hecho todos en unos 3 s. La tarjeta de la cola marca «en espera 0»: la espera queda escondida dentro de un consumidor, cuya tarjeta la cuenta «en búfer».",
        ),
    )
}

fn one_slot_shares_fairly() -> LessonStep {
    step(
        &[Focus::Node("fair"), Focus::Node("fair-slow")],
        t(
            "On 'fair' the same three consumers get the same orders, but fair-slow may hold only one unacked order. At 12.5 s, how many orders of 'fair' are still in flight?",
            "En 'fair' los mismos tres consumidores reciben los mismos pedidos, pero fair-slow solo puede tener un pedido sin ack. A los 12,5 s, ¿cuántos pedidos de 'fair' siguen en vuelo?",
        ),
        about(0.0, 0.0, Unit::Messages),
        Checkpoint::At { s: 12.5 },
        Figure::InFlightIn("fair"),
        t(
            "{figure}: 'fair' is done. With one slot, fair-slow is offered an order only once it has acked the last, so the quick consumers take nearly all of them and the last order was done within 2 s of arriving. 'greedy', with the same consumers and the same orders, still has dozens in greedy-slow's buffer. This is fair dispatch: a prefetch of 1, or a small one, when consumers differ in speed.",
            "{figure}: 'fair' terminó. Con un solo hueco, a fair-slow solo se le ofrece un pedido cuando hizo ack del anterior, así que los consumidores rápidos se llevan casi todos y el último pedido quedó hecho a menos de 2 s de llegar. 'greedy', con los mismos consumidores y los mismos pedidos, aún tiene decenas en el búfer de greedy-slow. Eso es el reparto justo (fair dispatch): un prefetch de 1, o pequeño, cuando los consumidores tienen velocidades distintas.",
        ),
    )
}

fn a_hoarders_crash_returns_its_buffer() -> LessonStep {
    step(
        &[Focus::Node("greedy-slow"), Focus::Node("greedy")],
        t(
            "At 40 s greedy-slow crashes, and it restarts a second later. What happens to the orders it holds?",
            "A los 40 s greedy-slow cae, y se reinicia un segundo después. ¿Qué pasa con los pedidos que retiene?",
        ),
        choose(
            1,
            [
                t("They are lost with its memory", "Se pierden con su memoria"),
                t(
                    "They go back in line at once; the quick consumers take some, and greedy-slow takes the rest again when it is back",
                    "Vuelven a la fila de inmediato; los rápidos se llevan algunos, y greedy-slow se lleva otra vez el resto al volver",
                ),
                t(
                    "They wait in its buffer until it restarts",
                    "Esperan en su búfer hasta que se reinicie",
                ),
            ],
        ),
        Checkpoint::At { s: 42.0 },
        Figure::Redeliveries,
        t(
            "Redeliveries: {figure}. Its channel closed, so the broker put every unacked order back in line at once, marked redelivered, although most had never been started. The quick consumers cleared about 20 in the second it was down; then greedy-slow came back with 100 free slots and hoarded the rest again. A deep prefetch turns a crash into a large batch of redeliveries, and a slow consumer that restarts takes its hoard back.",
            "Reentregas: {figure}. Su canal se cerró, así que el broker devolvió a la fila de una vez cada pedido sin ack, marcado como reentregado, aunque la mayoría nunca se había empezado. Los rápidos despacharon unos 20 en el segundo que estuvo caído; después greedy-slow volvió con 100 huecos libres y acaparó otra vez el resto. Un prefetch grande convierte una caída en un lote grande de reentregas, y un consumidor lento que se reinicia vuelve a acaparar.",
        ),
    )
}

fn the_hoard_drains_one_order_every_2_s() -> LessonStep {
    step(
        &[Focus::Node("greedy"), Focus::Node("greedy-slow")],
        t(
            "At 42 s greedy-slow holds 28 orders, one in its hands and 27 in its buffer, and it takes 2 s for each; nothing else is waiting. At 60 s, how many orders of 'greedy' are still in flight?",
            "A los 42 s greedy-slow retiene 28 pedidos, uno en sus manos y 27 en su búfer, y tarda 2 s en cada uno; no espera nada más. A los 60 s, ¿cuántos pedidos de 'greedy' siguen en vuelo?",
        ),
        about(19.0, 2.0, Unit::Messages),
        Checkpoint::At { s: 60.0 },
        Figure::InFlightIn("greedy"),
        t(
            "{figure}: one order every 2 s leaves greedy-slow's buffer (18 s, 9 orders), while the quick consumers have nothing to do. The last will be done at 97 s, almost a minute and a half after the last order arrived; 'fair' was done at about 12 s with the same consumers. A deep prefetch saves round trips when consumers are alike; next to quicker ones, a slow consumer with a deep prefetch makes orders wait behind it while others could take them. Watch what each consumer holds (busy and buffered on its card), not only what waits in the queue.",
            "{figure}: cada 2 s sale un pedido del búfer de greedy-slow (18 s, 9 pedidos), mientras los consumidores rápidos no tienen nada que hacer. El último quedará hecho a los 97 s, casi un minuto y medio después de que llegara el último pedido; 'fair' terminó hacia los 12 s con los mismos consumidores. Un prefetch grande ahorra viajes de ida y vuelta cuando los consumidores son parecidos; junto a otros más rápidos, un consumidor lento con un prefetch grande hace esperar pedidos detrás de él mientras otros podrían llevárselos. Vigila lo que retiene cada consumidor (ocupado y en búfer, en su tarjeta), no solo lo que espera en la cola.",
        ),
    )
}
