import { Module } from '@nestjs/common';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { HoldStoreModule } from '../hold-store';
import { AuditController } from './audit.controller';
import { AuditLog } from './audit-log';
import { AuditedActions } from './audited-actions';

/** The audit of staff actions (PostgreSQL), and the rule that commits each action with its entry. */
@Module({
  imports: [HoldStoreModule, CatalogueModule],
  controllers: [AuditController],
  providers: [AuditLog, AuditedActions],
  exports: [AuditedActions, AuditLog],
})
export class AuditModule {}
