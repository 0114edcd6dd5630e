import { Module } from '@nestjs/common';
import { LeaderElectionService } from './leader-election.service.js';

@Module({ providers: [LeaderElectionService], exports: [LeaderElectionService] })
export class LeaderModule {}
