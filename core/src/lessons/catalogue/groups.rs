//! Consumer groups under slow processing: a record longer than the poll interval.

use super::{about, choose, step, t};
use crate::lessons::{Checkpoint, Figure, Focus, Happening, Lesson, LessonStep, Unit};

pub fn poll_interval() -> Lesson {
    Lesson {
        name: "poll-interval",
        title: t(
            "A record slower than the poll interval: out of the group, again and again",
            "Un registro más lento que el intervalo de poll: fuera del grupo, una y otra vez",
        ),
        scenario: "member-poll-interval",
        steps: vec![
            the_slow_member_leaves(),
            the_record_runs_twice(),
            the_group_never_commits(),
            a_longer_interval_fixes_it(),
        ],
    }
}

fn the_slow_member_leaves() -> LessonStep {
    step(
        &[Focus::Node("mailer")],
        t(
            "Group mailer takes 8 s over each record, and a member must poll again within 5 s (its max.poll.interval). mailer-1 fetches the first invoice at 5 s. What happens at 10 s?",
            "El grupo mailer tarda 8 s con cada registro, y un miembro debe volver a hacer poll antes de 5 s (su max.poll.interval). mailer-1 lee la primera factura a los 5 s. ¿Qué pasa a los 10 s?",
        ),
        choose(
            1,
            [
                t(
                    "Nothing: it finishes at 13 s and commits",
                    "Nada: termina a los 13 s y hace commit",
                ),
                t(
                    "It leaves the group, and the group gives its partition to mailer-2",
                    "Sale del grupo, y el grupo le da su partición a mailer-2",
                ),
                t(
                    "The broker deletes the invoice",
                    "El broker borra la factura",
                ),
            ],
        ),
        Checkpoint::Next(Happening::LeftGroup),
        Figure::SecondsSince(5.0),
        t(
            "{figure} without a poll: the consumer counts as failed, leaves, and the group rebalances. Its process is still alive and still working on the invoice.",
            "{figure} sin hacer poll: el consumidor cuenta como caído, sale, y el grupo se rebalancea. Su proceso sigue vivo y sigue trabajando con la factura.",
        ),
    )
}

fn the_record_runs_twice() -> LessonStep {
    step(
        &[Focus::Node("mailer"), Focus::Metric(crate::lessons::Metric::Duplicates)],
        t(
            "After the rebalance mailer-2 starts the same invoice from the last commit, and mailer-1 finishes it at 13 s anyway. How many times has its effect been applied once mailer-2 is done too?",
            "Tras el rebalanceo, mailer-2 empieza la misma factura desde el último commit, y mailer-1 la termina igualmente a los 13 s. ¿Cuántas veces se ha aplicado su efecto cuando mailer-2 también termina?",
        ),
        about(2.0, 0.0, Unit::Count),
        Checkpoint::Next(Happening::DuplicateEffect),
        Figure::EffectsInGroup("mailer"),
        t(
            "Effects in the table of mailer: {figure}, both for the same invoice. mailer-1's commit failed (CommitFailedException) because it had left the group, so the record was read again; an idempotent handler would have applied it once.",
            "Efectos en la tabla de mailer: {figure}, los dos de la misma factura. El commit de mailer-1 falló (CommitFailedException) porque había salido del grupo, así que el registro se leyó otra vez; un handler idempotente lo habría aplicado una sola vez.",
        ),
    )
}

fn the_group_never_commits() -> LessonStep {
    step(
        &[Focus::Node("mailer"), Focus::Metric(crate::lessons::Metric::Lag)],
        t(
            "Every record takes longer than the interval, so each member leaves in turn. Of the 11 invoices, how many are still uncommitted (the lag) at the end, at 120 s?",
            "Cada registro tarda más que el intervalo, así que cada miembro sale por turnos. De las 11 facturas, ¿cuántas siguen sin commit (el lag) al final, a los 120 s?",
        ),
        about(11.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::Lag("mailer"),
        t(
            "Lag: {figure}. The group never commits: each record is processed again and again and the rebalances never stop. Raising max.poll.interval.ms, or taking fewer records per poll (max.poll.records), breaks the loop.",
            "Lag: {figure}. El grupo nunca hace commit: cada registro se procesa una y otra vez y los rebalanceos no paran. Subir max.poll.interval.ms, o tomar menos registros por poll (max.poll.records), rompe el ciclo.",
        ),
    )
}

fn a_longer_interval_fixes_it() -> LessonStep {
    step(
        &[Focus::Node("archive")],
        t(
            "Group archive takes the same 8 s per record but allows 10 s between polls. How many effects does its table hold at the end, for the 11 invoices?",
            "El grupo archive tarda los mismos 8 s por registro pero permite 10 s entre polls. ¿Cuántos efectos tiene su tabla al final, para las 11 facturas?",
        ),
        about(11.0, 0.0, Unit::Count),
        Checkpoint::End,
        Figure::EffectsInGroup("archive"),
        t(
            "{figure} effects: one per invoice. Each record is done within the interval, so no member leaves, nothing is rebalanced and every offset is committed.",
            "{figure} efectos: uno por factura. Cada registro termina dentro del intervalo, así que ningún miembro sale, no hay rebalanceos y cada offset tiene su commit.",
        ),
    )
}
