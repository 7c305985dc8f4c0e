import { Injectable } from '@nestjs/common';
import { ForbiddenError, InvalidInputError, NotFoundError } from '@app/common';
import { HealthAccessService } from './circles/health-access.service.js';
import { describePerson, resolvePerson, type CirclePerson } from './circles/member-resolution.js';
import { ObservationsService } from './fhir/observations.service.js';
import { renderObservationValue } from './fhir/observation-values.js';

export interface FamilyHealthCaller {
  userId: string;
  /** The chat's "who is this about" selection: an opaque member id (X-Acting-For). */
  actingFor?: string;
}

export interface FamilyHealthQuery {
  /** Empty or "me": the caller (or whoever acting-for selects); else a member id, name, nickname or e-mail. */
  member?: string;
  count: number;
  /** A code (LOINC etc.) or a word of the display name. */
  code?: string;
  /** Only observations at or after this clinical time. */
  since?: Date;
}

export interface FamilyHealthObservation {
  code: string | null;
  name: string | null;
  value: string | null;
  /** Clinical time: effective[x], else issued. */
  time: string;
}

export interface FamilyHealthAnswer {
  /** "me", or how the circle knows the person; never an internal user id. */
  subject: string;
  subject_member_id: string | null;
  observation_count: number;
  observations: FamilyHealthObservation[];
}

/** Someone whose data the caller may read: they share with the caller, so they have joined (a user id). */
type Sharer = CirclePerson & { userId: string };
const isSharer = (person: CirclePerson): person is Sharer => person.sharesWithCaller && person.userId !== null;

type Subject = { kind: 'self' } | { kind: 'person'; person: Sharer };

const SELF_WORDS = new Set(['', 'me', 'myself', 'self']);

/**
 * Reads recent observations of the caller or of someone who shares with them. Access is checked twice: the person
 * named must share with the caller (naming someone in the caller's circles who does not is refused as such), and
 * `canReadHealth` must pass.
 */
@Injectable()
export class FamilyHealthReader {
  constructor(
    private readonly access: HealthAccessService,
    private readonly observations: ObservationsService,
  ) {}

  async read(caller: FamilyHealthCaller, query: FamilyHealthQuery): Promise<FamilyHealthAnswer> {
    const subject = await this.resolveSubject(caller, query.member?.trim() ?? '');
    const subjectId = subject.kind === 'self' ? caller.userId : subject.person.userId;
    if (!(await this.access.canReadHealth(caller.userId, subjectId))) throw new ForbiddenError('This person does not share health data with you');
    const rows = await this.observations.newest(subjectId, {
      count: query.count,
      ...(query.code?.trim() ? { codes: [query.code.trim()], codeMatchesDisplay: true } : {}),
      dateBounds: query.since ? [{ operator: '>=', at: query.since }] : [],
    });
    return {
      subject: subject.kind === 'self' ? 'me' : (subject.person.nicknames[0] ?? subject.person.name ?? subject.person.email ?? 'member'),
      subject_member_id: subject.kind === 'self' ? null : subject.person.memberIds[0]!,
      observation_count: rows.length,
      observations: rows.map((row) => ({ code: row.code, name: row.display, value: renderObservationValue(row.resource), time: row.clinicalAt.toISOString() })),
    };
  }

  /** Whether the call's acting-for names someone (other than the caller) whose data the caller may read. */
  async actsForReadableMember(caller: FamilyHealthCaller): Promise<boolean> {
    if (!caller.actingFor) return false;
    const person = (await this.sharedWith(caller.userId)).find((candidate) => hasMemberId(candidate, caller.actingFor!));
    return !!person && (await this.access.canReadHealth(caller.userId, person.userId));
  }

  private async resolveSubject(caller: FamilyHealthCaller, member: string): Promise<Subject> {
    if (member === '' && caller.actingFor) return this.resolveActingFor(caller, caller.actingFor);
    if (SELF_WORDS.has(member.toLowerCase())) return { kind: 'self' };
    if (await this.access.isOwnMemberId(caller.userId, member)) return { kind: 'self' };
    const people = await this.access.circlePeople(caller.userId);
    const found = resolvePerson(member, people);
    if (found.kind === 'ambiguous') {
      throw new InvalidInputError(`member: "${member}" matches more than one person: ${found.candidates.map(describePerson).join('; ')}. Pass a member id.`, {
        member: 'ambiguous',
      });
    }
    if (found.kind === 'none') throw new NotFoundError(`member: nobody who shares health data with you matches "${member}". ${readableList(people)}`);
    const { person } = found;
    if (person.userId === caller.userId) return { kind: 'self' };
    if (!isSharer(person)) {
      throw new ForbiddenError(`member: "${member}" is ${describePerson(person)}, who does not share health data with you. ${readableList(people)}`);
    }
    return { kind: 'person', person };
  }

  private async resolveActingFor(caller: FamilyHealthCaller, actingFor: string): Promise<Subject> {
    if (await this.access.isOwnMemberId(caller.userId, actingFor)) return { kind: 'self' };
    const people = await this.sharedWith(caller.userId);
    const person = people.find((candidate) => hasMemberId(candidate, actingFor));
    if (!person) {
      throw new ForbiddenError(
        `The person this conversation is acting for (X-Acting-For ${actingFor}) does not share health data with you. ${readableList(people)}`,
      );
    }
    return { kind: 'person', person };
  }

  private async sharedWith(userId: string): Promise<Sharer[]> {
    return (await this.access.circlePeople(userId)).filter(isSharer);
  }
}

const hasMemberId = (person: CirclePerson, memberId: string) => person.memberIds.some((id) => id.toLowerCase() === memberId.trim().toLowerCase());

/** Only the people who share with the caller: what they can read, not everyone they could name. */
const readableList = (everyone: readonly CirclePerson[]) => {
  const people = everyone.filter(isSharer);
  return people.length === 0
    ? 'Nobody shares health data with you yet; you can read your own ("me").'
    : `You can read: "me"; ${people.map(describePerson).join('; ')}.`;
};
