//! The narration in Spanish: one plain sentence per fact, with the terms the lessons use
//! (ack, commit, offset, relay, handler) and the glossary's Spanish for the rest (cola,
//! consumidor, reentrega, cola de mensajes muertos (DLQ), bandeja de salida (outbox)).
//! Instants are written "a los 1,5 s", with a decimal comma and no trailing zeros.

use super::{
    counted, decimals, due, has_outbox, is_rabbitmq, is_sqs, mints_ids, reads_rabbitmq, whole, Due,
    Family,
};
use crate::lang::Lang;
use crate::scenario::{
    AckMode, ArrivalProcess, CrashPoint, Flavour, Idempotency, OffsetReset, Ordering, Overflow,
    Poison, ProducerCrashPoint, Rebalance,
};
use crate::sim::Simulation;
use crate::step::{
    ArmedFaults, CallRefusal, ConsumerId, DeadLetterReason, DuplicateSeen, Fact, Failure,
    IgnoredAck, LossReason, Moot, ProducerId, QueueId, RefusedBecause, Setting, SkipReason,
    Trigger,
};
use crate::time::Micros;

/// Describes `fact`, of `family`, in a sentence.
pub(super) fn describe(sim: &Simulation, fact: &Fact, family: Family) -> String {
    let describe_family = match family {
        Family::Publishing => publishing,
        Family::Confirms => confirms,
        Family::Broker => broker,
        Family::DeadLetters => dead_letters,
        Family::Deliveries => deliveries,
        Family::Acks => acks,
        Family::Processing => processing,
        Family::KeyOrder => key_order,
        Family::Operations => operations,
        Family::ProducerCrashes => producer_crashes,
        Family::Crashes => crashes,
        Family::Records => records,
        Family::Transactions => transactions,
        Family::RecordFailures => record_failures,
        Family::Rebalances => rebalances,
        Family::Members => members,
        Family::Dependencies => dependencies,
    };
    describe_family(sim, fact)
}

fn consumer(sim: &Simulation, c: ConsumerId) -> String {
    super::consumer(sim, c, "consumidor")
}

fn producer(sim: &Simulation, p: ProducerId) -> String {
    super::producer(sim, p, "productor")
}

fn queue(sim: &Simulation, q: QueueId) -> String {
    super::queue(sim, q, "cola")
}

fn secs(t: Micros) -> String {
    super::secs(t, Lang::Es)
}

/// Who caused it, for the parentheses after the sentence's verb. Whoever restarts by
/// itself (a broker, a consumer, a producer, a member) is masculine in Spanish.
fn by(trigger: Trigger) -> &'static str {
    match trigger {
        Trigger::Scheduled => "según lo programado",
        Trigger::User => "porque lo pediste",
        Trigger::AfterCrash => "por sí solo, tras su caída",
        Trigger::Unannounced => "sin aviso",
    }
}

fn poison_text(p: Poison) -> &'static str {
    match p {
        Poison::MalformedPayload => "su contenido está mal formado",
        Poison::UnknownSchemaVersion => "su versión de esquema es desconocida",
        Poison::UnauthorizedTenant => "su tenant no está autorizado",
    }
}

/// The poison as a relative clause ("un mensaje cuyo…"): "cuyo" agrees with the noun
/// that follows, so it cannot be cut from [`poison_text`] as the English does.
fn poison_whose(p: Poison) -> &'static str {
    match p {
        Poison::MalformedPayload => "cuyo contenido está mal formado",
        Poison::UnknownSchemaVersion => "cuya versión de esquema es desconocida",
        Poison::UnauthorizedTenant => "cuyo tenant no está autorizado",
    }
}

fn failure_text(f: Failure) -> &'static str {
    match f {
        Failure::Transient => "un error transitorio",
        Failure::DependencyDown => "una dependencia está caída",
        Failure::Poison(kind) => poison_text(kind),
        Failure::BatchRolledBack => "falló otro mensaje de su lote",
        Failure::DependencyTimeout => "su llamada a una dependencia agotó el tiempo de espera",
        Failure::TooOld => {
            "se creó hace más tiempo del que admite la ventana de repetición del handler"
        }
        Failure::CallRefused(why) => refusal_text(why),
    }
}

/// Un miembro caído que sigue en su grupo hasta que expire su sesión.
fn session_text(sim: &Simulation, ends: Option<Micros>) -> String {
    match ends.map(|t| due(sim, t)) {
        None => String::new(),
        Some(Due::At(t)) => format!(
            " Sus particiones siguen siendo suyas, sin que nadie las lea, hasta que su sesión expire a los {}.",
            secs(t)
        ),
        Some(Due::AfterEnd) => " Sus particiones siguen siendo suyas, sin que nadie las lea, hasta el final: su sesión expiraría después de que termine la ejecución.".to_string(),
    }
}

fn restart_text(sim: &Simulation, at: Option<Micros>) -> String {
    match at.map(|t| due(sim, t)) {
        // Nada lo reinicia solo; una orden puede (programada, o del usuario).
        None => " Sigue caído hasta que lo reinicien.".to_string(),
        Some(Due::At(t)) => format!(" Se reiniciará a los {}.", secs(t)),
        Some(Due::AfterEnd) => {
            " Sigue caído hasta el final: su reinicio llegaría después de que termine la ejecución."
                .to_string()
        }
    }
}

/// El reinicio de un relay de outbox, con el de su servicio.
fn both_restart_text(sim: &Simulation, at: Option<Micros>) -> String {
    match at.map(|t| due(sim, t)) {
        None => " Ambos siguen caídos hasta que los reinicien.".to_string(),
        Some(Due::At(t)) => format!(" Ambos se reiniciarán a los {}.", secs(t)),
        Some(Due::AfterEnd) => {
            " Ambos siguen caídos hasta el final: su reinicio llegaría después de que termine la ejecución."
                .to_string()
        }
    }
}

fn ack_text(ack: AckMode) -> &'static str {
    match ack {
        AckMode::OnDelivery => "al recibir la entrega, antes del efecto (una caída pierde trabajo)",
        AckMode::AfterCommit => "después del commit del efecto (una caída implica una reentrega)",
    }
}

fn idempotency_text(i: Idempotency) -> &'static str {
    match i {
        Idempotency::None => "ninguna, no se comprueba si un mensaje ya se procesó",
        Idempotency::CheckThenInsert => "comprobar y, después, insertar una marca de procesado",
        Idempotency::Inbox => {
            "una fila en la bandeja de entrada (inbox) con clave única, dentro de la transacción del efecto"
        }
    }
}

fn ordering_text(o: Ordering) -> &'static str {
    match o {
        Ordering::None => {
            "aplicar cada versión de una clave cuando termina su handler, en cualquier orden"
        }
        Ordering::IgnoreStale => {
            "omitir la versión de una clave que no sea más nueva que la ya aplicada"
        }
        Ordering::WaitForGap => {
            "retener la versión de una clave hasta que se haya aplicado su predecesora"
        }
        Ordering::Reconcile => {
            "ante un hueco, recuperar primero las versiones que faltan desde la fuente de verdad"
        }
    }
}

fn flavour_text(f: Flavour) -> &'static str {
    match f {
        Flavour::Generic => {
            "las reglas del broker genérico (reservas con vencimiento; cada reserva vencida cuenta como un intento fallido)"
        }
        Flavour::Rabbitmq => {
            "las reglas de RabbitMQ (sin reserva: los mensajes sin ack vuelven cuando se cierra el canal de un consumidor)"
        }
        Flavour::Sqs => {
            "las reglas de SQS estándar (tiempo de visibilidad, maxReceiveCount, entrega al menos una vez)"
        }
        Flavour::SqsFifo => {
            "las reglas de SQS FIFO (un mensaje en curso por grupo, una ventana de deduplicación)"
        }
    }
}

fn overflow_text(o: Overflow) -> &'static str {
    match o {
        Overflow::Reject => "rechazará las publicaciones nuevas",
        Overflow::DropOldest => "descartará el mensaje que más tiempo lleva esperando",
        Overflow::Throttle => "frenará a los productores",
    }
}

/// What a changed setting now is, as the start of a sentence.
fn setting_text(sim: &Simulation, setting: Setting) -> String {
    match setting {
        Setting::Arrivals {
            producer,
            process,
            rate_milli_per_s,
        } => {
            let how = match process {
                ArrivalProcess::Constant => "a intervalos regulares",
                ArrivalProcess::Poisson => "al azar (Poisson)",
            };
            format!(
                "{} ahora publica {} mensajes por segundo, {how}",
                sim.producer_name(producer).unwrap_or("el productor"),
                decimals((rate_milli_per_s as f64 / 1_000.0).to_string(), Lang::Es)
            )
        }
        Setting::GroupOrdering { group, ordering } => format!(
            "Orden por clave en el grupo {} a partir de ahora: {}",
            sim.group_name(group),
            ordering_text(ordering)
        ),
        Setting::Partitions { log, partitions } => format!(
            "{} ahora tiene {partitions} particiones: las claves se reparten por hash entre todas, así que los próximos registros de una clave pueden ir a otra partición que los anteriores, y sus grupos hacen un rebalanceo",
            sim.log_name(log)
        ),
        Setting::ServiceTime { .. }
        | Setting::Consumers { .. }
        | Setting::Prefetch { .. }
        | Setting::AckMode { .. }
        | Setting::Idempotency { .. }
        | Setting::Ordering { .. }
        | Setting::Retry { .. } => consumer_setting_text(sim, setting),
        Setting::VisibilityTimeout { .. }
        | Setting::ConsumerTimeout { .. }
        | Setting::QueueBound { .. }
        | Setting::Flavour { .. } => queue_setting_text(sim, setting),
        Setting::DependencyCapacity { .. }
        | Setting::DependencyTimeout { .. }
        | Setting::RetryBudget { .. }
        | Setting::Breaker { .. }
        | Setting::Admission { .. } => dependency_setting_text(sim, setting),
    }
}

/// A changed setting of a queue's consumers, as the start of a sentence.
fn consumer_setting_text(sim: &Simulation, setting: Setting) -> String {
    match setting {
        Setting::ServiceTime {
            queue: q,
            mean_us,
            exponential,
        } => format!(
            "Los consumidores de {} ahora tardan {} por mensaje{}",
            queue(sim, q),
            secs(mean_us),
            if exponential { " en promedio" } else { "" }
        ),
        Setting::Consumers { queue: q, count } => {
            format!("Los consumidores de {} pasan a ser {count}", queue(sim, q))
        }
        Setting::Prefetch { queue: q, prefetch } => format!(
            "Los consumidores de {} ahora tienen como máximo {} entregas sin terminar cada uno (prefetch)",
            queue(sim, q),
            whole(Lang::Es, prefetch)
        ),
        Setting::AckMode { queue: q, ack } => format!(
            "En cuanto no tengan nada entre manos, los consumidores de {} pasarán a hacer ack {}",
            queue(sim, q),
            ack_text(ack)
        ),
        Setting::Idempotency {
            queue: q,
            idempotency,
        } => format!(
            "Protección contra duplicados de los consumidores de {} a partir de ahora: {}",
            queue(sim, q),
            idempotency_text(idempotency)
        ),
        Setting::Ordering { queue: q, ordering } => format!(
            "Orden por clave en los consumidores de {} a partir de ahora: {}",
            queue(sim, q),
            ordering_text(ordering)
        ),
        Setting::Retry {
            queue: q,
            max_attempts,
            backoff_base_us,
        } => format!(
            "Los consumidores de {} ahora intentan cada mensaje como máximo {}, con una espera exponencial (backoff) que parte de {}",
            queue(sim, q),
            counted(Lang::Es, max_attempts, "vez", "veces"),
            secs(backoff_base_us)
        ),
        _ => unreachable!("setting_text sends only consumer settings here, not {setting:?}"),
    }
}

/// A changed setting of a queue itself, as the start of a sentence.
fn queue_setting_text(sim: &Simulation, setting: Setting) -> String {
    match setting {
        Setting::VisibilityTimeout { queue: q, lease_us } => format!(
            "Las entregas de {} ahora quedan invisibles durante {} antes de volver a ofrecerse",
            queue(sim, q),
            secs(lease_us)
        ),
        Setting::ConsumerTimeout {
            queue: q,
            timeout_us,
        } => format!(
            "{} ahora recupera una entrega que pase {} sin ack (su tiempo límite del consumidor)",
            queue(sim, q),
            secs(timeout_us)
        ),
        Setting::QueueBound {
            queue: q,
            max_length,
            overflow,
        } => match max_length {
            Some(n) => format!(
                "{} ahora admite como máximo {} mensajes; cuando se llene, {}",
                queue(sim, q),
                whole(Lang::Es, n),
                overflow_text(overflow)
            ),
            None => format!("{} ya no tiene límite de tamaño", queue(sim, q)),
        },
        Setting::Flavour { queue: q, flavour } => {
            format!("{} ahora sigue {}", queue(sim, q), flavour_text(flavour))
        }
        _ => unreachable!("setting_text sends only queue settings here, not {setting:?}"),
    }
}

/// A producer creates, commits and publishes.
fn publishing(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        Created { producer: p, msg, key, version, poison } => {
            let what = match (key, poison) {
                // Bien formado: sólo un handler que comprueba la autoridad del origen lo
                // distingue; para él es veneno, para uno que confía, un efecto.
                (Some(k), Some(Poison::UnauthorizedTenant)) => format!(
                    " para la clave {k} (versión {version}) — bien formado, pero su tenant no está autorizado"
                ),
                (_, Some(kind)) => format!(" — un mensaje venenoso (poison): {}", poison_text(kind)),
                (Some(k), None) => format!(" para la clave {k} (versión {version})"),
                (None, None) => String::new(),
            };
            format!("{} creó el mensaje #{msg}{what}.", producer(sim, p))
        }
        StateCommitted { producer: p, msg, outbox: true } => format!(
            "{} hizo commit de su estado y de la fila de #{msg} en la bandeja de salida (outbox) en una sola transacción: la solicitud queda aceptada.",
            producer(sim, p)
        ),
        StateCommitted { producer: p, msg, outbox: false } => format!(
            "{} hizo commit de su estado para #{msg}; publicar el evento es un paso aparte.",
            producer(sim, p)
        ),
        PublishSent { producer: p, msg, attempt: 1 } => format!("{} publicó #{msg} en el broker.", producer(sim, p)),
        PublishSent { producer: p, msg, attempt } if mints_ids(sim, p) => format!(
            "{} volvió a publicar #{msg} (intento {attempt}) con un id nuevo: los consumidores no pueden saber que es el mismo evento.",
            producer(sim, p)
        ),
        PublishSent { producer: p, msg, attempt } => {
            format!("{} volvió a publicar #{msg} (intento {attempt}) con el mismo id.", producer(sim, p))
        }
        Throttled { producer: p, msg, queue: q } => format!(
            "{} retiene #{msg}: {} está llena (contrapresión).",
            producer(sim, p),
            queue(sim, q)
        ),
        Buffered { producer: p, msg, expires_at_us } => format!(
            "El broker está caído: {} guarda #{msg} en su búfer y lo enviará cuando el broker vuelva{}.",
            producer(sim, p),
            match due(sim, expires_at_us) {
                Due::At(t) => format!(", si vuelve antes de los {} (su plazo de entrega)", secs(t)),
                Due::AfterEnd => String::new(),
            }
        ),
        BufferDropped { producer: p, msg, crashed: false } => format!(
            "{} descartó #{msg} de su búfer: su plazo de entrega venció antes de que el broker volviera, así que nunca se guardó.",
            producer(sim, p)
        ),
        BufferDropped { producer: p, msg, crashed: true } => format!(
            "{} cayó con #{msg} todavía en su búfer: se perdió sin guardarse nunca.",
            producer(sim, p)
        ),
        EventNeverPublished { producer: p, msg } => format!(
            "{} cayó después de hacer commit de su estado y antes de publicar #{msg}: el estado cambió, pero ningún evento lo contará jamás.",
            producer(sim, p)
        ),
        RequestRefused { producer: p } => format!(
            "Una solicitud llegó a {} mientras estaba caído y fue rechazada.",
            producer(sim, p)
        ),
        _ => unreachable!("describe sends only publishing facts here, not {fact:?}"),
    }
}

/// The broker's answer to a producer, and an outbox relay's bookkeeping.
fn confirms(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        ConfirmTimedOut { producer: p, msg, retry: true, .. } => format!(
            "{} no recibió a tiempo la confirmación de #{msg}: no puede saber si el broker lo tiene, así que lo publicará de nuevo.",
            producer(sim, p)
        ),
        ConfirmTimedOut { producer: p, msg, retry: false, .. } => format!(
            "{} no recibió la confirmación de #{msg} y no le quedan intentos.",
            producer(sim, p)
        ),
        Confirmed { producer: p, msg, .. } => format!(
            "El broker confirmó #{msg} a {}: se hizo responsable de él (esto no dice nada de los consumidores).",
            producer(sim, p)
        ),
        ConfirmLost { producer: p, msg, .. } => format!(
            "El broker guardó #{msg}, pero su confirmación a {} se perdió por el camino.",
            producer(sim, p)
        ),
        OutboxMarked { producer: p, msg } => format!(
            "El relay de {} marcó como enviada la fila de #{msg} en la bandeja de salida (outbox).",
            producer(sim, p)
        ),
        OutboxRetryScheduled { producer: p, msg, attempt, ready_at_us } => {
            let again = match due(sim, ready_at_us) {
                Due::At(t) => format!("la publicará de nuevo a partir de los {}", secs(t)),
                Due::AfterEnd => "la publicaría de nuevo después de que termine la ejecución".to_string(),
            };
            format!(
                "El relay de {} conserva la fila de #{msg} en la bandeja de salida (outbox): el intento {attempt} no se confirmó, así que {again} (espera exponencial).",
                producer(sim, p)
            )
        }
        OutboxRowParked { producer: p, msg, attempts } => format!(
            "El relay de {} agotó sus intentos de publicar #{msg} ({attempts}): su fila queda en la bandeja de salida (outbox), sin enviar, para un operador; la solicitud sigue pendiente, no perdida.",
            producer(sim, p)
        ),
        _ => unreachable!("describe sends only confirm facts here, not {fact:?}"),
    }
}

/// What the broker does with a publish: store, refuse, route, drop, deduplicate.
fn broker(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        Stored { msg, queue: q, .. } => format!("El broker guardó #{msg} en {}.", queue(sim, q)),
        Deduplicated { producer: p, msg } => format!(
            "El broker ya tenía #{msg} de {} (mismo id de productor y número de secuencia): descartó el reintento en vez de guardarlo dos veces.",
            producer(sim, p)
        ),
        Refused { producer: p, msg, queue: q, because: RefusedBecause::QueueFull, told: true } => format!(
            "{} está llena: el broker rechazó #{msg} y se lo hizo saber a {} (un nack para toda la publicación).",
            queue(sim, q),
            producer(sim, p)
        ),
        Refused { producer: p, msg, queue: q, because: RefusedBecause::QueueFull, told: false } => format!(
            "{} está llena: el broker descartó #{msg} y, sin confirmaciones de publicación, nadie se lo hizo saber a {}.",
            queue(sim, q),
            producer(sim, p)
        ),
        Refused { producer: p, msg, queue: q, because: RefusedBecause::OldestTooOld, .. } => format!(
            "Control de admisión: el mensaje más antiguo de {} lleva demasiado tiempo esperando, así que se rechazó #{msg} de {}.",
            queue(sim, q),
            producer(sim, p)
        ),
        PublishDenied { producer: p, msg, .. } => format!(
            "El broker rechazó #{msg}: {} no tiene permiso para publicar en {} (acceso denegado), así que no se guardó nada y se le avisó.",
            producer(sim, p),
            super::target(sim, p)
        ),
        Unroutable { producer: p, msg, returned: true } => format!(
            "#{msg} no coincidió con ningún binding y se devolvió a {} (mandatory).",
            producer(sim, p)
        ),
        Unroutable { msg, returned: false, .. } => format!(
            "#{msg} no coincidió con ningún binding y se descartó en silencio, aunque el broker aceptó la publicación."
        ),
        PublishFailed { producer: p, msg, .. } => format!(
            "{} publicó #{msg}, pero el broker está caído: no se guardó nada.",
            producer(sim, p)
        ),
        OutOfSequence { producer: p, msg, log, partition, ahead, .. } => format!(
            "El broker rechazó #{msg} de {0} por llegar fuera de secuencia: {1}, partición {partition}, añade los registros de un productor en el orden en que los envió, y #{ahead} aún no está guardado. {0} volverá a enviar #{msg} después.",
            producer(sim, p),
            sim.log_name(log)
        ),
        DroppedOldest { msg, queue: q, .. } => format!(
            "{} estaba llena: descartó su mensaje más antiguo, #{msg}.",
            queue(sim, q)
        ),
        Expired { msg, queue: q, .. } => format!(
            "#{msg} esperó demasiado en {} y expiró sin procesarse.",
            queue(sim, q)
        ),
        Redriven { msg, queue: q, .. } => format!(
            "#{msg} se reenvió desde la cola de mensajes muertos (DLQ) a {}, con su mismo id.",
            queue(sim, q)
        ),
        DuplicateKept { msg, queue: q, .. } => format!(
            "{} entregó #{msg} pero dejó visible otra copia suya (entrega al menos una vez): se entregará otra vez.",
            queue(sim, q)
        ),
        DedupWindowHit { producer: p, msg, queue: q } => format!(
            "{} ya había guardado #{msg} dentro de su ventana de deduplicación: la publicación de {} se aceptó y no se guardó de nuevo.",
            queue(sim, q),
            producer(sim, p)
        ),
        _ => unreachable!("describe sends only broker facts here, not {fact:?}"),
    }
}

/// Messages that leave their queue for good: dead-lettered or lost.
fn dead_letters(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        DeadLettered { msg, queue: q, reason: DeadLetterReason::RetriesExhausted, attempts, .. } => format!(
            "#{msg} falló en todos los intentos permitidos ({}) y pasó a la cola de mensajes muertos (DLQ) de {}, con su historial.",
            counted(Lang::Es, attempts, "entrega", "entregas"),
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::Poison(kind), .. } => format!(
            "#{msg} nunca podrá procesarse con éxito ({}): se saltó los reintentos y pasó a la cola de mensajes muertos (DLQ) de {}.",
            poison_text(kind),
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::DeliveryLimitReached, attempts, .. } => format!(
            "#{msg} alcanzó su límite de entregas tras {} sin ack y pasó a la cola de mensajes muertos (DLQ) de {} en vez de entregarse otra vez.",
            counted(Lang::Es, attempts, "entrega", "entregas"),
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::GapTimeout, .. } => format!(
            "#{msg} esperó demasiado a su predecesor (venció la espera del hueco): quedó apartado en la cola de mensajes muertos (DLQ) de {}.",
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::MaxLength, .. } => format!(
            "{} estaba llena: descartó #{msg}, el primero de la fila, y lo mandó a su cola de mensajes muertos (DLQ).",
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::Expired, .. } => format!(
            "#{msg} esperó demasiado en {} y expiró hacia su cola de mensajes muertos (DLQ).",
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::TooOld, .. } => format!(
            "#{msg} es más antiguo de lo que acepta el consumidor de {} (su ventana de repetición): esperar solo lo haría más antiguo, así que se saltó los reintentos y pasó a la cola de mensajes muertos (DLQ).",
            queue(sim, q)
        ),
        DeadLettered { msg, queue: q, reason: DeadLetterReason::RetryBudgetExhausted, .. } => format!(
            "#{msg} falló cuando el presupuesto de reintentos estaba agotado: en lugar de reintentarse, pasó a la cola de mensajes muertos (DLQ) de {}.",
            queue(sim, q)
        ),
        MessageLost { msg, reason, .. } => format!("#{msg} se perdió: {}.", loss_text(reason)),
        _ => unreachable!("describe sends only dead letters facts here, not {fact:?}"),
    }
}

fn loss_text(reason: LossReason) -> &'static str {
    match reason {
        LossReason::AckedBeforeEffectThenCrashed => {
            "se hizo ack al recibirlo y su consumidor cayó antes del commit del efecto"
        }
        LossReason::AckedBeforeEffectThenFailed => {
            "se hizo ack al recibirlo y después su handler falló"
        }
        LossReason::BrokerRestartNotDurable => {
            "el broker cayó sin haberlo persistido, así que nadie volverá a entregarlo"
        }
        LossReason::DiscardedWithoutDeadLetterQueue => {
            "falló definitivamente y no hay cola de mensajes muertos (DLQ)"
        }
    }
}

/// Deliveries, leases and retries between a queue and its consumers.
fn deliveries(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        Delivered { msg, attempt: 1, consumer: c, lease_until_us: Some(until), .. } => match due(sim, until) {
            Due::At(until) => format!(
                "El broker entregó #{msg} a {}; queda oculto hasta los {} si no llega su ack.",
                consumer(sim, c),
                secs(until)
            ),
            Due::AfterEnd => format!(
                "El broker entregó #{msg} a {}; su reserva dura más que la ejecución, así que si no llega su ack queda oculto hasta el final.",
                consumer(sim, c)
            ),
        },
        Delivered { msg, attempt, consumer: c, lease_until_us, .. } => {
            let again = if attempt > 1 { format!(" de nuevo (intento {attempt})") } else { String::new() };
            let lease = match lease_until_us.map(|u| due(sim, u)) {
                None => String::new(),
                Some(Due::At(u)) => format!("; queda oculto hasta los {}", secs(u)),
                Some(Due::AfterEnd) => {
                    "; queda oculto hasta el final (su reserva dura más que la ejecución)".to_string()
                }
            };
            format!("El broker entregó #{msg}{again} a {}{lease}.", consumer(sim, c))
        }
        LeaseExpired { msg, copy, attempt, consumer: c } if is_rabbitmq(sim, copy) => format!(
            "{} retuvo #{msg} (intento {attempt}) sin ack más allá de su tiempo límite (consumer timeout): el broker cerró su canal y devolvió #{msg} a la cola para reentregarlo, junto con las demás entregas que tenía sin ack.",
            consumer(sim, c)
        ),
        LeaseExpired { msg, attempt, consumer: c, .. } => format!(
            "La reserva (lease) de #{msg} (intento {attempt}, en manos de {}) venció sin ack: vuelve a estar visible y se reentregará.",
            consumer(sim, c)
        ),
        RetryReady { msg, .. } => format!("#{msg} vuelve a estar visible y en espera de entrega."),
        RetryScheduled { msg, failures, ready_at_us, .. } => match due(sim, ready_at_us) {
            Due::At(t) => format!("#{msg} se reintentará a los {} (fallo {failures}, espera exponencial).", secs(t)),
            Due::AfterEnd => format!(
                "#{msg} se reintentaría después de que termine la ejecución (fallo {failures}, espera exponencial)."
            ),
        },
        Requeued { msg, attempt, consumer: c, .. } => format!(
            "El canal de {} se cerró con #{msg} sin ack (intento {attempt}): el broker lo devolvió a la espera de inmediato, marcado como reentregado.",
            consumer(sim, c)
        ),
        LeaseExtended { msg, consumer: c, lease_until_us, .. } => {
            let to = match due(sim, lease_until_us) {
                Due::At(t) => format!("hasta los {}", secs(t)),
                Due::AfterEnd => "más allá del final de la ejecución".to_string(),
            };
            format!(
                "{} sigue trabajando en #{msg} y extendió su reserva {to} (un heartbeat de visibilidad).",
                consumer(sim, c)
            )
        }
        _ => unreachable!("describe sends only delivery facts here, not {fact:?}"),
    }
}

/// Acks and what becomes of them.
fn acks(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        AckedOnDelivery { msg, consumer: c, .. } => format!(
            "{} hizo ack de #{msg} al recibirlo: el broker lo olvidó antes de que se hiciera ningún trabajo.",
            consumer(sim, c)
        ),
        Acked { msg, consumer: c, twin_held: false, .. } => format!(
            "{} hizo ack de #{msg}; el broker lo eliminó definitivamente.",
            consumer(sim, c)
        ),
        Acked { msg, consumer: c, twin_held: true, .. } => format!(
            "{} hizo ack de #{msg}; el broker borró esta copia, pero otra copia (un duplicado de la entrega al menos una vez) sigue en la cola y se procesará otra vez.",
            consumer(sim, c)
        ),
        AckIgnored { msg, consumer: c, why: IgnoredAck::StaleLease, .. } => format!(
            "{} hizo ack de #{msg} demasiado tarde: el broker ya había recuperado esa entrega, así que el ack no cambió nada.",
            consumer(sim, c)
        ),
        AckIgnored { msg, consumer: c, why: IgnoredAck::AlreadyDone, .. } => format!(
            "{} hizo ack de #{msg}, que otra entrega ya había resuelto.",
            consumer(sim, c)
        ),
        AckLost { msg, consumer: c, broker_down: true, .. } if is_sqs(sim, c) => format!(
            "El borrado de #{msg} que envió {} nunca llegó a SQS, que está caído: #{msg} sigue oculto hasta que vence su tiempo de visibilidad, y entonces se entrega de nuevo.",
            consumer(sim, c)
        ),
        AckLost { msg, consumer: c, broker_down: true, .. } => format!(
            "El ack de {} para #{msg} nunca llegó al broker, que está caído: al caer devolvió #{msg} a la fila, para entregarlo de nuevo cuando vuelva.",
            consumer(sim, c)
        ),
        AckLost { msg, copy, consumer: c, .. } if is_rabbitmq(sim, copy) => format!(
            "El ack de {} para #{msg} nunca llegó al broker: sigue sin ack hasta que se cierre el canal del consumidor o venza su tiempo límite (consumer timeout), y entonces se entrega de nuevo.",
            consumer(sim, c)
        ),
        AckLost { msg, consumer: c, .. } => format!(
            "El ack de {} para #{msg} nunca llegó al broker: cuando venza la reserva, se entregará de nuevo.",
            consumer(sim, c)
        ),
        _ => unreachable!("describe sends only ack facts here, not {fact:?}"),
    }
}

/// A queue consumer's handler, its database and its side effects.
fn processing(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        ProcessingStarted { msg, attempt, consumer: c, done_at_us, .. } => {
            let finish = match due(sim, done_at_us) {
                Due::At(t) => format!("terminará a los {}", secs(t)),
                Due::AfterEnd => "acabaría después de que termine la ejecución".to_string(),
            };
            format!("{} empezó a procesar #{msg} (intento {attempt}); {finish}.", consumer(sim, c))
        }
        DuplicateSkipped { msg, consumer: c, seen: DuplicateSeen::CheckFoundMark, .. } => format!(
            "{} encontró #{msg} ya marcado como procesado y lo omitió.",
            consumer(sim, c)
        ),
        DuplicateSkipped { msg, consumer: c, seen: DuplicateSeen::InboxConflict, .. } => format!(
            "{} intentó registrar #{msg} en su bandeja de entrada (inbox), chocó con la clave única y deshizo la transacción: no hay un segundo efecto.",
            consumer(sim, c)
        ),
        TakenForDuplicate { msg, consumer: c, key, first, .. } => format!(
            "{} intentó registrar #{msg} en su inbox, cuya clave es la entidad: la clave {key} ya tiene una fila, de #{first}, que es otro mensaje. Deshizo la transacción y da #{msg} por tratado: su trabajo nunca se hace (perdido).",
            consumer(sim, c)
        ),
        UnauthorizedEffect { msg, consumer: c, producer: p, .. } => format!(
            "{} confía en todo lo que entrega el broker, así que nunca comprobó que {} pueda pedir #{msg}: su tenant no está autorizado, y el efecto está en la base de datos igualmente (efecto no autorizado).",
            consumer(sim, c),
            producer(sim, p)
        ),
        EffectCommitted { msg, consumer: c, applied: 1, .. } => format!(
            "{} hizo commit del efecto de #{msg} en la base de datos.",
            consumer(sim, c)
        ),
        EffectCommitted { msg, consumer: c, applied, .. } => format!(
            "{} volvió a hacer commit del efecto de #{msg}: ya se aplicó {applied} veces (duplicado).",
            consumer(sim, c)
        ),
        EffectRefused { msg, consumer: c, key, .. } => format!(
            "{} rechazó #{msg}: el saldo de la clave {key} no alcanza para ese retiro.",
            consumer(sim, c)
        ),
        HandlerFailed { msg, consumer: c, failure, attempt, .. } => {
            let why = match failure {
                Failure::BatchRolledBack => "falló otro mensaje de su lote, así que se deshizo el lote entero",
                other => failure_text(other),
            };
            format!("El handler de {} falló al procesar #{msg} (intento {attempt}): {why}.", consumer(sim, c))
        }
        ConsumerEmailSent { msg, consumer: c, times: 1, .. } => {
            format!("{} envió el correo de #{msg}.", consumer(sim, c))
        }
        ConsumerEmailSent { msg, consumer: c, times, .. } => format!(
            "{} volvió a enviar el correo de #{msg} ({times} en total): el correo queda fuera de la transacción y nada reconoció el duplicado.",
            consumer(sim, c)
        ),
        _ => unreachable!("describe sends only processing facts here, not {fact:?}"),
    }
}

/// Per-key versions at a queue consumer: stale versions, gaps and how they close.
fn key_order(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        StaleIgnored { msg, consumer: c, key, version, current, .. } => format!(
            "{} ignoró #{msg}: la versión {version} de la clave {key} no es más nueva que la versión aplicada, {current}.",
            consumer(sim, c)
        ),
        GapWait { msg, consumer: c, key, version, current, .. } => format!(
            "{} retiene #{msg}: la clave {key} está en la versión {current}, así que la versión {version} debe esperar a su predecesora.",
            consumer(sim, c)
        ),
        GapReconciled { msg, consumer: c, key, from, to, .. } => format!(
            "{} encontró un hueco antes de #{msg}: leyó {} de la clave {key} desde la fuente de verdad y {} aplicó primero.",
            consumer(sim, c),
            super::span("la versión", "las versiones", u64::from(from), u64::from(to) + 1),
            if from == to { "la" } else { "las" }
        ),
        GapRecheck { msg, consumer: c, ready_at_us, gives_up_at_us, .. } => match due(sim, ready_at_us) {
            Due::At(t) => format!(
                "#{msg} espera a su predecesor sin contar como fallo: {} vuelve a mirar a los {} y deja de esperar en su primera revisión a partir de los {}.",
                consumer(sim, c),
                secs(t),
                secs(gives_up_at_us)
            ),
            Due::AfterEnd => format!(
                "#{msg} espera a su predecesor sin contar como fallo hasta el final: {} volvería a mirar después de que termine la ejecución.",
                consumer(sim, c)
            ),
        },
        GapSkipped { msg, consumer: c, key, version, current, .. } => format!(
            "{} dejó de esperar la versión {} de la clave {key} y aplica #{msg} (versión {version}) de todos modos: las versiones que faltan quedan omitidas.",
            consumer(sim, c),
            current + 1
        ),
        _ => unreachable!("describe sends only key order facts here, not {fact:?}"),
    }
}

/// Changes an operator makes to a running system: settings, scaling, deploys, outages.
fn operations(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        SettingChanged { setting, trigger } => format!("{} ({}).", setting_text(sim, setting), by(trigger)),
        ConsumerAdded { consumer: c, queue: q, trigger } => format!(
            "{} se unió a los consumidores de {} ({}) y pide trabajo.",
            consumer(sim, c),
            queue(sim, q),
            by(trigger)
        ),
        ConsumerStopping { consumer: c, trigger, called_off, still_armed } => format!(
            "{} no acepta más entregas ({}); se detendrá cuando termine lo que tiene.{}{}",
            consumer(sim, c),
            by(trigger),
            called_off_text(called_off, "se va"),
            still_armed_text(still_armed)
        ),
        ConsumerStopped { consumer: c, was_down: false, called_off } => format!(
            "{} terminó lo que tenía y se detuvo; no se perdió nada de lo suyo.{}",
            consumer(sim, c),
            called_off_text(called_off, "ya se fue")
        ),
        ConsumerStopped { consumer: c, was_down: true, called_off } => format!(
            "{} estaba caído y se iba, así que no se reinicia: queda detenido (se redujo la escala).{}",
            consumer(sim, c),
            called_off_text(called_off, "ya se fue")
        ),
        AckModeSwitched { consumer: c, ack } => format!(
            "{} se suscribió de nuevo: desde ahora hace ack {}.",
            consumer(sim, c),
            ack_text(ack)
        ),
        DependencyDown { queue: q, until_us, trigger } => format!(
            "La dependencia de los consumidores de {} está caída hasta los {} ({}): los intentos que terminen antes fallan.",
            queue(sim, q),
            secs(until_us),
            by(trigger)
        ),
        FixDeployed { queue: q, poison, trigger } => format!(
            "Se desplegó una corrección en los consumidores de {} ({}): un mensaje {} ya no falla.",
            queue(sim, q),
            by(trigger),
            poison_whose(poison)
        ),
        RedriveStarted { queue: q, count, milli_per_s, broker_down, trigger } => format!(
            "Reenvío de la cola de mensajes muertos de {} ({}): {} por devolver, {} por segundo{}.",
            queue(sim, q),
            by(trigger),
            counted(Lang::Es, count, "mensaje", "mensajes"),
            super::milli(milli_per_s, Lang::Es),
            if broker_down { ", en cuanto vuelva el broker (está caído)" } else { "" }
        ),
        _ => unreachable!("describe sends only operations facts here, not {fact:?}"),
    }
}

/// A producer's crash or restart; an outbox producer's relay crash (between the confirm
/// and marking the row) and its restart are told as the relay's.
fn producer_crashes(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        ProducerCrashArmed { producer: p, point, trigger } => {
            let when = match point {
                ProducerCrashPoint::Now => "de inmediato",
                ProducerCrashPoint::AfterCommitBeforePublish => {
                    "después de su próximo commit de estado, antes de publicar"
                }
                ProducerCrashPoint::AfterPublishBeforeMark => {
                    "después de la próxima publicación confirmada de su relay, antes de marcar la fila"
                }
            };
            format!("{} caerá {when} ({}).", producer(sim, p), by(trigger))
        }
        ProducerCrashed { producer: p, point: ProducerCrashPoint::AfterPublishBeforeMark, trigger, restart_at_us }
            if has_outbox(sim, p) =>
        {
            format!(
                "El relay de la bandeja de salida (outbox) de {} cayó ({}) después de que el broker confirmara su publicación y antes de marcar la fila como enviada: la fila sigue sin enviar, así que el relay la publicará de nuevo. Corre en el proceso del servicio, que cayó con él; la base de datos, con la bandeja de salida incluida, está intacta.{}",
                producer(sim, p),
                by(trigger),
                both_restart_text(sim, restart_at_us)
            )
        }
        ProducerCrashed { producer: p, trigger, restart_at_us, .. } => format!(
            "{} cayó ({}); perdió su memoria, pero no su base de datos{}.{}",
            producer(sim, p),
            by(trigger),
            if has_outbox(sim, p) { " (con la bandeja de salida incluida)" } else { "" },
            restart_text(sim, restart_at_us)
        ),
        ProducerRestarted { producer: p, trigger } if has_outbox(sim, p) => format!(
            "El relay de la bandeja de salida (outbox) de {} se reinició con su servicio ({}) y vuelve a publicar cada fila no marcada como enviada.",
            producer(sim, p),
            by(trigger)
        ),
        ProducerRestarted { producer: p, trigger } => format!("{} se reinició ({}).", producer(sim, p), by(trigger)),
        ConfirmDropArmed { producer: p, trigger } => {
            format!("La próxima confirmación para {} se perderá ({}).", producer(sim, p), by(trigger))
        }
        _ => unreachable!("describe sends only producer crashes here, not {fact:?}"),
    }
}

/// Cuándo cae un consumidor con una caída armada.
fn crash_when(point: CrashPoint) -> &'static str {
    match point {
        CrashPoint::Now => "de inmediato",
        CrashPoint::AfterReceive => "justo cuando le llegue su próxima entrega",
        CrashPoint::AfterCommitBeforeAck => "justo después de su próximo commit, antes del ack",
    }
}

/// Las fallas armadas en un consumidor, como sujeto de una oración, y si son dos.
fn armed_faults(faults: ArmedFaults) -> (String, bool) {
    let lost_ack = "la pérdida de su próximo ack";
    match (faults.crash, faults.lost_ack) {
        (Some(p), true) => (
            format!("La caída que tenía armada ({}) y {lost_ack}", crash_when(p)),
            true,
        ),
        (Some(p), false) => (
            format!("La caída que tenía armada ({})", crash_when(p)),
            false,
        ),
        (None, _) => ("La pérdida de su próximo ack".to_string(), false),
    }
}

/// " La caída que tenía armada (…) queda anulada: {why}." por las fallas que la reducción
/// de consumidores anuló; nada si no hay ninguna.
fn called_off_text(faults: ArmedFaults, why: &str) -> String {
    if faults.is_empty() {
        return String::new();
    }
    let (subject, two) = armed_faults(faults);
    let verb = if two {
        "quedan anuladas"
    } else {
        "queda anulada"
    };
    format!(" {subject} {verb}: {why}.")
}

/// Las fallas que un consumidor que se va todavía puede alcanzar, que siguen armadas.
fn still_armed_text(faults: ArmedFaults) -> String {
    if faults.is_empty() {
        return String::new();
    }
    let (subject, two) = armed_faults(faults);
    let verb = if two { "siguen en pie" } else { "sigue en pie" };
    format!(" {subject} {verb}: todavía termina lo que tiene y envía sus acks.")
}

/// Crashes, restarts and slowdowns of the broker and queue consumers.
fn crashes(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        BrokerCrashed { trigger, restart_at_us } => format!(
            "El broker cayó ({}): no guarda ni entrega nada hasta reiniciarse, y lo que no había persistido se perdió.{}",
            by(trigger),
            restart_text(sim, restart_at_us)
        ),
        BrokerRestarted { trigger } => format!("El broker se reinició ({}) y vuelve a entregar.", by(trigger)),
        CrashArmed { consumer: c, point, trigger } => {
            format!("{} caerá {} ({}).", consumer(sim, c), crash_when(point), by(trigger))
        }
        AckDropArmed { consumer: c, trigger } => {
            format!("El próximo ack de {} se perderá ({}).", consumer(sim, c), by(trigger))
        }
        ConsumerFaultCalledOff { consumer: c, called_off, stopped, trigger } => {
            let crash = |p| match p {
                CrashPoint::Now => format!("La caída de {}", consumer(sim, c)),
                p => format!("La caída de {} {}", consumer(sim, c), crash_when(p)),
            };
            let (what, verb) = match (called_off.crash, called_off.lost_ack) {
                (Some(p), true) => (format!("{} y la pérdida de su próximo ack", crash(p)), "quedan anuladas"),
                (Some(p), false) => (crash(p), "queda anulada"),
                (None, _) => (format!("La pérdida del próximo ack de {}", consumer(sim, c)), "queda anulada"),
            };
            let why = if stopped {
                "ya se fue (se redujo la escala)"
            } else if called_off.crash == Some(CrashPoint::AfterReceive) {
                "se está yendo y no acepta más entregas"
            } else {
                "se está yendo y no le queda ningún ack por enviar"
            };
            format!("{what} ({}) {verb}: {why}.", by(trigger))
        }
        ConsumerCrashed { consumer: c, point, trigger, restart_at_us } => {
            let when = match point {
                CrashPoint::Now => "",
                CrashPoint::AfterReceive => " justo después de recibir una entrega",
                CrashPoint::AfterCommitBeforeAck => " después del commit, antes de enviar su ack",
            };
            let unacked = if reads_rabbitmq(sim, c) {
                "sus entregas sin ack vuelven al broker"
            } else {
                "sus entregas sin ack vuelven cuando venzan sus reservas (leases)"
            };
            format!(
                "{} cayó{when} ({}): su trabajo en curso se corta ahí; {unacked}.{}",
                consumer(sim, c),
                by(trigger),
                restart_text(sim, restart_at_us)
            )
        }
        ConsumerRestarted { consumer: c, trigger } => {
            format!("{} se reinició ({}) y pide trabajo al broker.", consumer(sim, c), by(trigger))
        }
        ConsumerSlowed { consumer: c, factor_pct: 100, trigger } => {
            format!("{} vuelve a trabajar a velocidad normal ({}).", consumer(sim, c), by(trigger))
        }
        ConsumerSlowed { consumer: c, factor_pct, trigger } => format!(
            "{} ahora tarda {}× lo normal por mensaje ({}).",
            consumer(sim, c),
            decimals(format!("{:.1}", f64::from(factor_pct) / 100.0), Lang::Es),
            by(trigger)
        ),
        CommandMoot { moot, trigger } => moot_text(sim, moot, trigger),
        _ => unreachable!("describe sends only crashes facts here, not {fact:?}"),
    }
}

/// Una orden que no encontró nada que hacer.
fn moot_text(sim: &Simulation, moot: Moot, trigger: Trigger) -> String {
    let by = by(trigger);
    // Un reinicio de lo que está en marcha, una caída de lo que ya cayó: la misma frase para cada componente.
    let up = |who: String| {
        format!("{who} ya está en marcha: el reinicio ({by}) no tiene nada que hacer.")
    };
    let down =
        |who: String| format!("{who} ya está caído: la caída ({by}) no tiene a quién afectar.");
    match moot {
        Moot::RestartConsumerUp { consumer: c } => up(consumer(sim, c)),
        Moot::CrashConsumerDown { consumer: c } => down(consumer(sim, c)),
        Moot::RestartProducerUp { producer: p } => up(producer(sim, p)),
        Moot::CrashProducerDown { producer: p } => down(producer(sim, p)),
        Moot::RestartBrokerUp => up("El broker".into()),
        Moot::CrashBrokerDown => down("El broker".into()),
        Moot::CrashMemberDown { group, member } => down(sim.member_name(group, member)),
        Moot::RestartConsumerStopped { consumer: c } => format!(
            "{} ya se fue (se redujo la escala): no se reinicia ({by}); para sumar un consumidor, amplía la escala.",
            consumer(sim, c)
        ),
        Moot::PoisonProducerDown { producer: p } => {
            format!("{} está caído: el mensaje venenoso ({by}) no se envía.", producer(sim, p))
        }
        Moot::NoConfirmToLose { producer: p } => format!(
            "{} no espera confirmaciones del broker: la pérdida de su próxima confirmación ({by}) no tiene sobre qué actuar.",
            producer(sim, p)
        ),
        Moot::RedriveEmpty { queue: q } => format!(
            "La cola de mensajes muertos (DLQ) de {} está vacía: el reenvío ({by}) no tiene nada que mover.",
            queue(sim, q)
        ),
        Moot::PartitionsNotGrown { log, asked, has } => format!(
            "{} ya tiene {has} particiones y las particiones de un log solo pueden aumentar: el cambio a {asked} ({by}) no hace nada.",
            sim.log_name(log)
        ),
        Moot::NoAckToLose { consumer: c } => format!(
            "{} confirma al recibir: el broker da el mensaje por confirmado al entregarlo, así que ningún ack vuelve y la pérdida de su próximo ack ({by}) no tiene sobre qué actuar.",
            consumer(sim, c)
        ),
        Moot::NoAckAfterCommit { consumer: c } => format!(
            "{} confirma al recibir, antes de trabajar: nunca llega un momento después de su commit y antes de su ack, así que la caída ({by}) no tiene cuándo ocurrir.",
            consumer(sim, c)
        ),
        Moot::AckDropAlreadyArmed { consumer: c } => format!(
            "El próximo ack de {} ya se va a perder: esta pérdida ({by}) no añade nada.",
            consumer(sim, c)
        ),
        Moot::CrashAlreadyArmed { consumer: c, armed } => format!(
            "Ya hay armada una caída de {}, {}: solo una caída a la vez, así que esta ({by}) no añade nada.",
            consumer(sim, c),
            crash_when(armed)
        ),
        Moot::ConfirmDropAlreadyArmed { producer: p } => format!(
            "La próxima confirmación a {} ya se va a perder: esta pérdida ({by}) no añade nada.",
            producer(sim, p)
        ),
    }
}

/// Log records: appended, expired, and what group members do with them.
fn records(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        Appended { producer: p, msg, log, partition, offset } => format!(
            "{} añadió #{msg} a {}, partición {partition}, en el offset {offset}.",
            producer(sim, p),
            sim.log_name(log)
        ),
        RecordsExpired { log, partition, from, to } => format!(
            "La retención eliminó {} de {}, partición {partition}, se hubieran leído o no.",
            super::span("el offset", "los offsets", from, to),
            sim.log_name(log)
        ),
        RecordStarted { group, member, partition, offset, msg, .. } => format!(
            "{} empezó a procesar #{msg} (partición {partition}, offset {offset}).",
            sim.member_name(group, member)
        ),
        RecordProcessed { group, member, msg, applied: 0, .. } => format!(
            "{} reconoció #{msg} como ya procesado y no aplicó su efecto.",
            sim.member_name(group, member)
        ),
        RecordProcessed { group, member, msg, applied: 1, offset, .. } => {
            format!("{} procesó #{msg} (offset {offset}).", sim.member_name(group, member))
        }
        RecordProcessed { group, member, msg, applied, .. } => format!(
            "{} procesó #{msg} otra vez: su efecto ya se aplicó {applied} veces (duplicado).",
            sim.member_name(group, member)
        ),
        RecordUnauthorizedEffect { group, member, msg, producer: p } => format!(
            "{} confía en todo lo que contiene su log, así que nunca comprobó que {} pueda pedir #{msg}: su tenant no está autorizado, y el efecto está en la base de datos igualmente (efecto no autorizado).",
            sim.member_name(group, member),
            producer(sim, p)
        ),
        RecordTakenForDuplicate { group, member, msg, key, first, offset, .. } => format!(
            "{} intentó registrar #{msg} (offset {offset}) en su inbox, cuya clave es la entidad: la clave {key} ya tiene una fila, de #{first}, que es otro mensaje. Deshizo la transacción y pasa de #{msg} como ya tratado: su efecto nunca se aplica (perdido).",
            sim.member_name(group, member)
        ),
        OffsetCommitted { group, partition, offset } => format!(
            "El grupo {} hizo commit del offset {offset} en la partición {partition}: tras un reinicio, retoma desde ahí.",
            sim.group_name(group)
        ),
        RecordsSkipped { group, partition, from, to, why, .. } => {
            let one = to <= from + 1;
            let why = match (why, one) {
                (SkipReason::CommittedBeforeProcessing, true) => "se hizo commit de su offset antes de procesarlo",
                (SkipReason::CommittedBeforeProcessing, false) => "se hizo commit de sus offsets antes de procesarlos",
                (SkipReason::ExpiredUnread, true) => "la retención lo eliminó antes de que el grupo lo leyera",
                (SkipReason::ExpiredUnread, false) => "la retención los eliminó antes de que el grupo los leyera",
                (SkipReason::ResetToLatest, true) => "la retención eliminó el registro de su posición, y el grupo salta al final del log (auto.offset.reset=latest), más allá de este aunque sigue retenido",
                (SkipReason::ResetToLatest, false) => "la retención eliminó el registro de su posición, y el grupo salta al final del log (auto.offset.reset=latest), más allá de estos aunque siguen retenidos",
                (SkipReason::SeekOutOfRange, true) => "el offset del seek estaba fuera de rango, y auto.offset.reset=latest lleva al grupo al final del log, más allá de este, que no había leído",
                (SkipReason::SeekOutOfRange, false) => "el offset del seek estaba fuera de rango, y auto.offset.reset=latest lleva al grupo al final del log, más allá de estos, que no había leído",
            };
            format!(
                "El grupo {} nunca procesará {} de la partición {partition}: {why}.",
                sim.group_name(group),
                super::span("el offset", "los offsets", from, to)
            )
        }
        _ => unreachable!("describe sends only records facts here, not {fact:?}"),
    }
}

/// A group member's outputs, transactions and emails.
fn transactions(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        OutputWritten { group, member, msg, log, partition, offset, open } => format!(
            "{} escribió #{msg} en {}, partición {partition}, en el offset {offset}{}.",
            sim.member_name(group, member),
            sim.log_name(log),
            if open { ", dentro de su transacción abierta" } else { "" }
        ),
        TransactionCommitted { group, member, outputs } => format!(
            "{} hizo commit de su transacción: {outputs} registro(s) de salida y el offset de entrada se hicieron visibles a la vez.",
            sim.member_name(group, member)
        ),
        TransactionAborted { group, member, outputs } => format!(
            "La transacción de {} abortó: sus {outputs} registro(s) de salida quedan en el log, marcados como abortados; los lectores read_committed los omiten.",
            sim.member_name(group, member)
        ),
        TransactionLeftOpen { group, member, outputs, aborts_at_us } => format!(
            "La transacción de {} sigue abierta con {outputs} registro(s) de salida: los lectores read_committed se detienen antes de ellos, y de lo que les sigue en sus particiones, hasta que el coordinador la aborte {} o {} vuelva con el mismo transactional.id.",
            sim.member_name(group, member),
            match due(sim, aborts_at_us) {
                Due::At(t) => format!("a los {} (transaction.timeout.ms)", secs(t)),
                Due::AfterEnd => "al vencer su plazo, después de que termine la ejecución,".to_string(),
            },
            sim.member_name(group, member)
        ),
        TransactionTimedOut { group, member } => format!(
            "La transacción abierta de {} llegó a su transaction.timeout.ms: el coordinador la aborta.",
            sim.member_name(group, member)
        ),
        TransactionFenced { group, member } => format!(
            "{} volvió con el mismo transactional.id: al arrancar su productor aísla al anterior y aborta la transacción que dejó abierta.",
            sim.member_name(group, member)
        ),
        ControlRecordWritten { log, partition, offset, commit } => format!(
            "El coordinador escribió una marca de {} en la partición {partition} de {} en el offset {offset}: un registro de control que ningún consumidor recibe, así que ese offset no guarda ningún mensaje.",
            if commit { "commit" } else { "aborto" },
            sim.log_name(log)
        ),
        AbortedSkipped { group, partition, offset } => format!(
            "El grupo {} (read_committed) omitió el registro abortado del offset {offset} de la partición {partition}.",
            sim.group_name(group)
        ),
        EmailSent { group, member, msg, times: 1 } => {
            format!("{} envió el correo de #{msg}.", sim.member_name(group, member))
        }
        EmailSent { group, member, msg, times } => format!(
            "{} volvió a enviar el correo de #{msg} ({times} en total): la transacción no cubre un correo.",
            sim.member_name(group, member)
        ),
        _ => unreachable!("describe sends only transaction facts here, not {fact:?}"),
    }
}

/// A group member's handler failing on a record, and what follows.
fn record_failures(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        RecordFailed { group, member, msg, offset, attempt, failure, .. } => format!(
            "El handler de {} falló al procesar #{msg} (offset {offset}, intento {attempt}): {}; no se aplicó nada.",
            sim.member_name(group, member),
            failure_text(failure)
        ),
        RecordRetrying { group, member, partition, msg, attempt, retry_at_us, .. } => match due(sim, retry_at_us) {
            Due::At(t) => format!(
                "{} reintentará #{msg} en su sitio (intento {attempt}) a los {}: la partición {partition} espera detrás de él.",
                sim.member_name(group, member),
                secs(t)
            ),
            Due::AfterEnd => format!(
                "{} reintentaría #{msg} en su sitio (intento {attempt}) después de que termine la ejecución: la partición {partition} espera detrás de él hasta el final.",
                sim.member_name(group, member)
            ),
        },
        RecordDeadLettered { group, partition, msg, attempts, reason, log, .. } => {
            let why = match reason {
                DeadLetterReason::Poison(kind) => format!("nunca podrá procesarse con éxito ({})", poison_text(kind)),
                DeadLetterReason::TooOld => "es más antiguo que la ventana de repetición del grupo, y esperar solo lo haría más antiguo".to_string(),
                // A group only gives up on failed attempts; queue-only reasons never reach here.
                _ => format!("falló en {}", counted(Lang::Es, attempts, "intento", "intentos")),
            };
            let to = log.map_or(format!("al topic de mensajes muertos (DLQ) de {}", sim.group_name(group)), |l| format!("a {}", sim.log_name(l)));
            format!("El grupo {} se rindió con #{msg}: {why}. Fue {to} y la partición {partition} sigue adelante.", sim.group_name(group))
        }
        RecordEffectRefused { group, member, msg, key, .. } => format!(
            "{} rechazó #{msg}: la cuenta {key} no tiene saldo suficiente, así que nada cambió.",
            sim.member_name(group, member)
        ),
        RecordStaleIgnored { group, member, msg, key, version, current } => format!(
            "{} ignoró #{msg}: la versión {version} de la clave {key} no es más nueva que la versión aplicada, {current}.",
            sim.member_name(group, member)
        ),
        _ => unreachable!("describe sends only record failures facts here, not {fact:?}"),
    }
}

/// "1 miembro activo", "3 miembros activos".
fn up_count(up: u32) -> String {
    match up {
        1 => "1 miembro activo".to_string(),
        n => format!("{n} miembros activos"),
    }
}

/// Consumer groups handing partitions over.
fn rebalances(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        RebalanceStarted { group, members_up: 0 } => format!(
            "El grupo {} está haciendo un rebalanceo sin ningún miembro activo: sus particiones se revocan y esperan, sin que nadie las lea, hasta que vuelva un miembro.",
            sim.group_name(group)
        ),
        RebalanceStarted { group, members_up } if sim.group_rebalance(group) == Rebalance::Eager => format!(
            "El grupo {} está haciendo un rebalanceo ({}): todas las particiones se pausan y se revocan; un miembro con un registro entre manos lo termina y hace commit antes de volver a unirse.",
            sim.group_name(group),
            up_count(members_up)
        ),
        RebalanceStarted { group, members_up } => format!(
            "El grupo {} está haciendo un rebalanceo cooperativo ({}): solo se revocan las particiones que cambian de dueño; las demás siguen fluyendo.",
            sim.group_name(group),
            up_count(members_up)
        ),
        PartitionAssigned { group, partition, member: Some(m), from_offset } => format!(
            "La partición {partition} ahora pertenece a {}, que retoma desde el offset {from_offset}.",
            sim.member_name(group, m)
        ),
        PartitionAssigned { group, partition, member: None, .. } => format!(
            "La partición {partition} del grupo {} no tiene ningún miembro activo que la lea.",
            sim.group_name(group)
        ),
        PartitionRevoked { group, partition, member, finishing: Some(offset) }
            if sim.group_rebalance(group) == Rebalance::Eager =>
        {
            format!(
                "La partición {partition} se le revoca a {}, junto con las demás: no lee nada más de ella, y la suelta y vuelve a unirse cuando termina el offset {offset}.",
                sim.member_name(group, member)
            )
        }
        PartitionRevoked { group, partition, member, finishing: Some(offset) } => format!(
            "La partición {partition} pasa a otro miembro: {} ya no lee nada más de ella y la suelta en cuanto termine con el offset {offset}.",
            sim.member_name(group, member)
        ),
        PartitionRevoked { group, partition, member, finishing: None } => format!(
            "La partición {partition} pasa a otro miembro; {} no tenía ningún registro suyo en curso.",
            sim.member_name(group, member)
        ),
        PartitionReleased { group, partition, member, committed } => format!(
            "{} soltó la partición {partition} tras hacer commit del offset {committed}: su próximo dueño empieza ahí.",
            sim.member_name(group, member)
        ),
        StaleWorkInProgress { group, partition, member, offset, again: true } => format!(
            "{} sigue procesando el offset {offset} de la partición {partition}, leído antes del último rebalanceo o rebobinado: ya no puede hacer commit, así que ese registro se procesará otra vez.",
            sim.member_name(group, member)
        ),
        StaleWorkInProgress { group, partition, member, offset, again: false } => format!(
            "{} sigue procesando el offset {offset} de la partición {partition}, leído antes del último rebalanceo o rebobinado; ya se había hecho commit de su offset, así que nadie volverá a procesarlo.",
            sim.member_name(group, member)
        ),
        _ => unreachable!("describe sends only rebalance facts here, not {fact:?}"),
    }
}

/// Group members crashing and joining, and groups rewinding.
fn members(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        MemberCrashArmed { group, member, trigger } => format!(
            "{} caerá después de su próximo registro, antes de hacer commit ({}).",
            sim.member_name(group, member),
            by(trigger)
        ),
        MemberCrashed { group, member, trigger, restart_at_us, session_ends_at_us, .. } => format!(
            "{} cayó ({}).{}{}",
            sim.member_name(group, member),
            by(trigger),
            session_text(sim, session_ends_at_us),
            restart_text(sim, restart_at_us)
        ),
        PollIntervalExceeded {
            group,
            member,
            partition,
            offset,
            interval_us,
            session_ends_at_us: Some(ends),
            ..
        } => format!(
            "{} lleva {} con el offset {offset} de la partición {partition} sin volver a hacer poll, su intervalo máximo (max.poll.interval.ms). Como miembro estático no avisa de su salida: deja de enviar heartbeats, y ya no puede hacer commit.{}",
            sim.member_name(group, member),
            secs(interval_us),
            session_text(sim, Some(ends))
        ),
        PollIntervalExceeded { group, member, partition, offset, interval_us, again, .. } => format!(
            "{} lleva {} con el offset {offset} de la partición {partition} sin volver a hacer poll, su intervalo máximo (max.poll.interval.ms): sale del grupo {}, que reparte de nuevo sus particiones. Aun así termina el registro, {}",
            sim.member_name(group, member),
            secs(interval_us),
            sim.group_name(group),
            if again {
                "que el próximo dueño de la partición vuelve a leer desde el último commit."
            } else {
                "cuyo offset tuvo commit antes de procesarlo: nadie vuelve a leerlo."
            }
        ),
        CommitFailed { group, member, partition, offset, in_session: true, .. } => format!(
            "{} terminó el offset {offset} de la partición {partition} después de pasar su intervalo de poll: su commit falla (CommitFailedException). Su próximo poll lo devuelve al grupo {} dentro de su sesión, como miembro estático: sin rebalanceo, y vuelve a leer sus particiones desde su último commit.",
            sim.member_name(group, member),
            sim.group_name(group)
        ),
        CommitFailed { group, member, partition, offset, .. } => format!(
            "{} terminó el offset {offset} de la partición {partition} después de salir de su grupo: su commit falla (CommitFailedException), y su próximo poll lo devuelve al grupo {}, que hace otro rebalanceo.",
            sim.member_name(group, member),
            sim.group_name(group)
        ),
        MemberSessionTimedOut { group, member } => format!(
            "La sesión de {} expiró: el coordinador lo saca del grupo {}, que reparte de nuevo sus particiones.",
            sim.member_name(group, member),
            sim.group_name(group)
        ),
        MemberJoined { group, member, trigger } => format!(
            "{} se unió al grupo {} ({}).",
            sim.member_name(group, member),
            sim.group_name(group),
            by(trigger)
        ),
        GroupRewound { group, to_offset, trigger, reset } => format!(
            "{} {}",
            match to_offset {
                None => format!(
                    "El grupo {} volvió a los offsets más antiguos retenidos ({}): reproducirá el log de nuevo.",
                    sim.group_name(group),
                    by(trigger)
                ),
                Some(o) => format!(
                    "El grupo {} hace seek al offset {o} en cada partición ({}).",
                    sim.group_name(group),
                    by(trigger)
                ),
            },
            match reset {
                0 => "Cada miembro hace seek en las particiones que tiene: sus offsets confirmados se mueven con su próximo commit, y una caída antes las reanuda en el último commit.".to_string(),
                n => format!(
                    "Cada miembro activo hace seek en las particiones que tiene (sus offsets confirmados se mueven con su próximo commit); {} que ningún miembro activo tiene {} al momento.",
                    counted(Lang::Es, n, "partición", "particiones"),
                    if n == 1 { "reinicia su offset confirmado" } else { "reinician sus offsets confirmados" }
                ),
            }
        ),
        SkipUndone { group, partition, from, to } => format!(
            "El grupo {} lee después de todo {} de la partición {partition}: auto.offset.reset=latest solo había llevado su posición de lectura más allá de {e}, y su posición ha vuelto a antes de {e}, así que {} como {}.",
            sim.group_name(group),
            super::span("el offset", "los offsets", from, to),
            if to <= from + 1 { "ya no cuenta" } else { "ya no cuentan" },
            if to <= from + 1 { "saltado" } else { "saltados" },
            e = if to <= from + 1 { "él" } else { "ellos" },
        ),
        SeekOutOfRange { group, offset, by_policy, reset, clamped } => {
            let head = format!(
                "El offset {offset} está fuera de rango en {} del grupo {} (antes del inicio del log o más allá de su final)",
                counted(Lang::Es, by_policy + clamped, "partición", "particiones"),
                sim.group_name(group)
            );
            let la = if by_policy == 1 { "la" } else { "las" };
            let policy = match reset {
                OffsetReset::Earliest => format!("el siguiente fetch allí es rechazado (OFFSET_OUT_OF_RANGE) y auto.offset.reset=earliest {la} lleva al inicio del log, para leer desde el registro retenido más antiguo"),
                OffsetReset::Latest => format!("el siguiente fetch allí es rechazado (OFFSET_OUT_OF_RANGE) y auto.offset.reset=latest {la} lleva al final del log, más allá de lo que el grupo no había leído"),
            };
            let clamp = if clamped == 1 {
                "su offset confirmado se fija en el offset más cercano que contiene, como hace kafka-consumer-groups --reset-offsets"
            } else {
                "sus offsets confirmados se fijan en el offset más cercano que contiene cada una, como hace kafka-consumer-groups --reset-offsets"
            };
            match (by_policy, clamped) {
                (_, 0) => format!("{head}: {policy}."),
                (0, c) => format!(
                    "{head}: ningún miembro activo {} tiene, así que {clamp}.",
                    if c == 1 { "la" } else { "las" }
                ),
                (n, c) => format!(
                    "{head}. En {}, {policy}; en {}, {clamp}.",
                    if n == 1 { "la partición que tiene un miembro".to_string() } else { format!("las {n} particiones que tienen miembros") },
                    if c == 1 { "la partición que ningún miembro activo tiene".to_string() } else { format!("las {c} particiones que ningún miembro activo tiene") }
                ),
            }
        }
        _ => unreachable!("describe sends only member facts here, not {fact:?}"),
    }
}

// ----- dependencias ----------------------------------------------------------------------

fn dependency(sim: &Simulation, d: u32) -> String {
    super::dependency(sim, d, "dependencia")
}

fn refusal_text(why: CallRefusal) -> &'static str {
    match why {
        CallRefusal::LineFull => "la fila de espera de la dependencia estaba llena",
        CallRefusal::OldestTooOld => {
            "la petición más antigua de la dependencia llevaba demasiado tiempo esperando (control de admisión)"
        }
        CallRefusal::Outage => "la dependencia estaba caída",
        CallRefusal::CircuitOpen => "el disyuntor (circuit breaker) estaba abierto",
    }
}

/// A changed setting of a dependency or of its callers, as the start of a sentence.
fn dependency_setting_text(sim: &Simulation, setting: Setting) -> String {
    match setting {
        Setting::DependencyCapacity { dependency: d, concurrency, mean_us, exponential } => format!(
            "{} ahora atiende {concurrency} peticiones a la vez, y cada una tarda {}{} cuando va sola",
            dependency(sim, d),
            secs(mean_us),
            if exponential { " de media" } else { "" }
        ),
        Setting::DependencyTimeout { dependency: d, timeout_us } => format!(
            "Quienes llaman a {} ahora dejan de esperar tras {}",
            dependency(sim, d),
            secs(timeout_us)
        ),
        Setting::RetryBudget { dependency: d, budget_milli: Some((tokens, ratio)) } => format!(
            "Quienes llaman a {} ahora comparten un presupuesto de reintentos de {} fichas (cada llamada fallida gasta una y cada éxito devuelve {}); un mensaje fallido solo se reintenta mientras quede más de la mitad",
            dependency(sim, d),
            super::milli(tokens, Lang::Es),
            super::milli(ratio, Lang::Es)
        ),
        Setting::RetryBudget { dependency: d, budget_milli: None } => format!(
            "Quienes llaman a {} ahora reintentan sin presupuesto",
            dependency(sim, d)
        ),
        Setting::Breaker { dependency: d, breaker: Some((failures, open_us)) } => format!(
            "Quienes llaman a {} ahora usan un disyuntor (circuit breaker): {failures} llamadas fallidas seguidas lo abren durante {}",
            dependency(sim, d),
            secs(open_us)
        ),
        Setting::Breaker { dependency: d, breaker: None } => format!(
            "Quienes llaman a {} ya no usan disyuntor (circuit breaker)",
            dependency(sim, d)
        ),
        Setting::Admission { dependency: d, max_age_us: Some(age) } => format!(
            "{} ahora descarta las peticiones que esperaron más de {} y rechaza llamadas mientras la más antigua lo supere (control de admisión)",
            dependency(sim, d),
            secs(age)
        ),
        Setting::Admission { dependency: d, max_age_us: None } => format!(
            "{} ahora atiende todas las peticiones que admitió (sin control de admisión)",
            dependency(sim, d)
        ),
        _ => unreachable!("setting_text sends only dependency settings here, not {setting:?}"),
    }
}

/// Handlers calling a dependency, and the callers' protections.
fn dependencies(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        DependencyCalled { msg, consumer: c, dependency: d, request, ahead, .. } => format!(
            "{} llamó a {} por #{msg} (petición {request}); había {} peticiones esperando delante.",
            consumer(sim, c),
            dependency(sim, d),
            whole(Lang::Es, ahead)
        ),
        DependencyAnswered { msg, consumer: c, dependency: d, took_us, .. } => format!(
            "{} respondió a {} sobre #{msg} tras {}, a tiempo: el handler sigue adelante.",
            dependency(sim, d),
            consumer(sim, c),
            secs(took_us)
        ),
        CallTimedOut { msg, consumer: c, dependency: d, .. } => format!(
            "{} dejó de esperar a {} por #{msg} (se agotó su tiempo de espera): el handler falla, pero la petición sigue en {}, que hará el trabajo igualmente.",
            consumer(sim, c),
            dependency(sim, d),
            dependency(sim, d)
        ),
        WorkWasted { msg, dependency: d, late_by_us, .. } => format!(
            "{} terminó la petición de #{msg} {} después de que quien llamaba se rindiera: trabajo desperdiciado.",
            dependency(sim, d),
            secs(late_by_us)
        ),
        CallRejected { msg, consumer: c, dependency: d, why: CallRefusal::CircuitOpen, .. } => format!(
            "La llamada de {} a {} por #{msg} falló al instante: el disyuntor (circuit breaker) está abierto, así que ni salió.",
            consumer(sim, c),
            dependency(sim, d)
        ),
        CallRejected { msg, consumer: c, dependency: d, why, .. } => format!(
            "{} rechazó al instante la llamada de {} por #{msg}: {}.",
            dependency(sim, d),
            consumer(sim, c),
            refusal_text(why)
        ),
        RequestShed { msg, dependency: d, waited_us, .. } => format!(
            "{} descartó sin atenderla la petición de #{msg}: había esperado {}, más de lo que permite el control de admisión.",
            dependency(sim, d),
            secs(waited_us)
        ),
        RetryDenied { msg, dependency: d, tokens_milli, .. } => format!(
            "Al presupuesto de reintentos de {} le quedan {} fichas: #{msg} no se reintentará.",
            dependency(sim, d),
            super::milli(tokens_milli, Lang::Es)
        ),
        _ => breaker_and_slowdowns(sim, fact),
    }
}

fn breaker_and_slowdowns(sim: &Simulation, fact: &Fact) -> String {
    use Fact::*;
    match *fact {
        BreakerOpened { dependency: d, failures, until_us } => format!(
            "El disyuntor (circuit breaker) de {} se abrió tras {failures} llamadas fallidas seguidas: las llamadas fallan al instante hasta los {}.",
            dependency(sim, d),
            secs(until_us)
        ),
        BreakerHalfOpen { dependency: d } => format!(
            "El disyuntor (circuit breaker) de {} está medio abierto: deja pasar una llamada de prueba.",
            dependency(sim, d)
        ),
        BreakerClosed { dependency: d } => format!(
            "La llamada de prueba a {} funcionó: el disyuntor (circuit breaker) se cerró y las llamadas vuelven a pasar.",
            dependency(sim, d)
        ),
        DependencySlowed { dependency: d, factor_milli, until_us, trigger } => format!(
            "{} se vuelve más lenta ({}): cada petición que empiece hasta los {} tarda {} veces más.",
            dependency(sim, d),
            by(trigger),
            secs(until_us),
            super::milli(factor_milli, Lang::Es)
        ),
        _ => unreachable!("describe sends only dependency facts here, not {fact:?}"),
    }
}
